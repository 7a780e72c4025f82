package openapi

import "strings"

// downgrade rewrites, in place, the schemas of v, a part of a 3.1
// document that is not a schema (its paths, its components' responses),
// as walk does: the values of its "schema" members, which parameters,
// media types and headers hold. Nothing else there is a schema, and
// nothing else is touched: a security requirement, whose members are
// named after the user's schemes ("type" too), is left as it is.
func downgrade(v any) {
	switch x := v.(type) {
	case obj:
		for k, e := range x {
			if k == "schema" {
				x[k] = walk(e)
			} else {
				downgrade(e)
			}
		}
	case []any:
		for _, e := range x {
			downgrade(e)
		}
	}
}

// walk rewrites, in place, a schema of a 3.1 document as OpenAPI 3.0.3
// has it (a dialect of JSON Schema draft 4): a type array with "null"
// becomes the type and nullable: true; a nullable reference
// (oneOf a $ref and {"type":"null"}) becomes allOf the $ref with
// nullable: true, since 3.0 ignores what stands beside a $ref;
// contentEncoding base64 becomes format byte. Burrow's documents use
// nothing else 3.0 lacks (no const, in particular: 3.0 would need it as a
// one-value enum).
//
// walk visits every object of the schema, schemas and maps of names
// alike (properties), and tells them apart by shape: the keys it
// rewrites hold an array or a string only in a schema, while a map of
// names holds an object under every name, whatever the name ("type",
// "oneOf"). A keyword whose value may be an object, as const's may, could
// not be told from a member of that name; so there is none here.
func walk(v any) any {
	switch x := v.(type) {
	case obj:
		for k, e := range x {
			x[k] = walk(e)
		}
		schema30(x)
		return x
	case []any:
		for i, e := range x {
			x[i] = walk(e)
		}
	}
	return v
}

// schema30 rewrites m in place if it is a schema using 3.1 forms. A map
// of names holds none of these keys with these shapes.
func schema30(m obj) {
	if types, ok := m["type"].([]any); ok {
		var kept []any
		for _, t := range types {
			if t == "null" {
				m["nullable"] = true
			} else {
				kept = append(kept, t)
			}
		}
		if len(kept) == 1 {
			m["type"] = kept[0]
		} else {
			delete(m, "type") // several types: 3.0 cannot say it; accept any
		}
	}
	if alts, ok := m["oneOf"].([]any); ok && len(alts) == 2 {
		if isNull(alts[1]) {
			delete(m, "oneOf")
			m["allOf"] = []any{alts[0]}
			m["nullable"] = true
		}
	}
	if m["contentEncoding"] == "base64" {
		delete(m, "contentEncoding")
		m["format"] = "byte"
	}
}

func isNull(v any) bool {
	m, ok := v.(obj)
	return ok && len(m) == 1 && m["type"] == "null"
}

// typeRefs gives each nullable reference in v (allOf one $ref, as walk
// writes it) the type of the schema it names: 3.0 reads nullable only
// beside a type, and a $ref has none of its own.
func typeRefs(v any, schemas obj) {
	switch x := v.(type) {
	case obj:
		if x["nullable"] == true && x["type"] == nil {
			if t, ok := refType(x["allOf"], schemas); ok {
				x["type"] = t
			}
		}
		for _, e := range x {
			typeRefs(e, schemas)
		}
	case []any:
		for _, e := range x {
			typeRefs(e, schemas)
		}
	}
}

// refType is the type of the component schema that allOf, a list of one
// reference, names.
func refType(allOf any, schemas obj) (string, bool) {
	all, ok := allOf.([]any)
	if !ok || len(all) != 1 {
		return "", false
	}
	ref, ok := all[0].(obj)
	if !ok {
		return "", false
	}
	name, ok := ref["$ref"].(string)
	if !ok {
		return "", false
	}
	sc, ok := schemas[strings.TrimPrefix(name, "#/components/schemas/")].(obj)
	if !ok {
		return "", false
	}
	t, ok := sc["type"].(string)
	return t, ok
}
