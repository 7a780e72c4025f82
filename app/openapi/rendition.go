package openapi

import (
	"slices"
	"strings"
)

// What 3.2 adds to 3.1 where Burrow has the information: a path item's
// query operation and its additionalOperations (a method of any other
// name), and a stream's itemSchema. The document is built with them;
// streams32 and before32 make each rendition of it.

// operations calls fn with each operation of a path item, its fields' and
// its additionalOperations'.
func operations(item obj, fn func(op obj)) {
	for k, v := range item {
		if op, ok := v.(obj); ok && (k == "query" || slices.Contains(methods, strings.ToUpper(k))) {
			fn(op)
		}
	}
	extra, _ := item["additionalOperations"].(obj)
	for _, v := range extra {
		fn(v.(obj))
	}
}

// media calls fn with each media type object of op's responses.
func media(op obj, fn func(m obj)) {
	for _, res := range op["responses"].(obj) {
		content, _ := res.(obj)["content"].(obj)
		for _, m := range content {
			fn(m.(obj))
		}
	}
}

// streams32 describes a stream by its items alone in the 3.2 rendition:
// its schema, a string, said nothing 3.1 could not say otherwise.
func streams32(paths obj) {
	for _, item := range paths {
		operations(item.(obj), func(op obj) {
			media(op, func(m obj) {
				if _, ok := m["itemSchema"]; ok {
					delete(m, "schema")
				}
			})
		})
	}
}

// before32 removes from paths what 3.1 and 3.0.3 cannot hold: query and
// additionalOperations (a path left with no operation goes too: OpenAPI
// 3.1 would take an empty path item, but it describes nothing), and
// itemSchema. 3.1 has extensions, which could carry a QUERY operation;
// but no tool would read one there, and a client generated from 3.1
// could not send the method anyway.
func before32(paths obj) {
	for path, v := range paths {
		item := v.(obj)
		operations(item, func(op obj) {
			media(op, func(m obj) { delete(m, "itemSchema") })
		})
		delete(item, "query")
		delete(item, "additionalOperations")
		if len(item) == 0 {
			delete(paths, path)
		}
	}
}

// prune removes the components the document no longer refers to, once
// before32 has taken out the operations that alone used them: the
// schemas and responses no reference reaches, and the security schemes
// no operation requires.
func prune(doc *top) {
	comps := doc.Components
	if comps == nil {
		return
	}
	const schemaRef, responseRef = "#/components/schemas/", "#/components/responses/"
	used, schemes := map[string]bool{}, map[string]bool{}
	var queue []any
	mark := func(v any) {
		refs(v, func(r string) {
			if !used[r] {
				used[r] = true
				if name, ok := strings.CutPrefix(r, schemaRef); ok {
					queue = append(queue, at(comps, "schemas", name))
				} else if name, ok := strings.CutPrefix(r, responseRef); ok {
					queue = append(queue, at(comps, "responses", name))
				}
			}
		})
	}
	mark(doc.Paths)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		mark(v)
	}
	for _, item := range doc.Paths {
		operations(item.(obj), func(op obj) {
			reqs, _ := op["security"].([]any)
			for _, req := range reqs {
				for name := range req.(obj) {
					schemes[name] = true
				}
			}
		})
	}
	for _, kind := range []struct {
		key  string
		used func(name string) bool
	}{
		{"schemas", func(n string) bool { return used[schemaRef+n] }},
		{"responses", func(n string) bool { return used[responseRef+n] }},
		{"securitySchemes", func(n string) bool { return schemes[n] }},
	} {
		m, _ := comps[kind.key].(obj)
		for name := range m {
			if !kind.used(name) {
				delete(m, name)
			}
		}
		if m != nil && len(m) == 0 {
			delete(comps, kind.key)
		}
	}
	if len(comps) == 0 {
		doc.Components = nil
	}
}

// at is m[group][name], or nil.
func at(m obj, group, name string) any {
	g, _ := m[group].(obj)
	return g[name]
}

// refs calls fn with the target of every $ref in v.
func refs(v any, fn func(string)) {
	switch x := v.(type) {
	case obj:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				fn(s)
			} else {
				refs(e, fn)
			}
		}
	case []any:
		for _, e := range x {
			refs(e, fn)
		}
	}
}
