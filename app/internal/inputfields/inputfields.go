// Package inputfields names the fields of an input struct as a client
// sets them: by a "json", "query" or "param" tag, and for JSON by
// encoding/json's rules for embedded structs, so that the validator, the
// text decoders and the strict JSON scan all see the members the
// decoder fills.
package inputfields

import (
	"encoding"
	"reflect"
	"slices"
	"strings"
)

// Field is a field of an input struct as the client names it.
type Field struct {
	Key  string // the client's name for it
	Path []int  // its index, through embedded structs
	reflect.StructField
}

// List lists the fields of struct type t a client can set, named
// by tag ("json", "query" or "param"), in field order. For JSON they are
// exactly the members encoding/json decodes into: the fields of embedded
// structs are promoted to the outer object, a shallower field hides a
// deeper one of the same name, a tagged one wins between equals, and a
// name still claimed twice belongs to no field. Query and path values
// have no nesting, so for them embedding means nothing.
func List(t reflect.Type, tag string) []Field {
	if base, only := strings.CutSuffix(tag, onlySuffix); only {
		return listSource(t, base, nil, false, nil)
	}
	if tag != "json" {
		var out []Field
		for i := range t.NumField() {
			f := t.Field(i)
			if name := Name(f, tag); f.IsExported() && name != "-" {
				out = append(out, Field{Key: name, Path: []int{i}, StructField: f})
			}
		}
		return out
	}
	type candidate struct {
		Field
		depth  int
		tagged bool
	}
	type embedded struct {
		t     reflect.Type
		index []int
	}
	var found []candidate
	explored := map[reflect.Type]bool{}
	level := []embedded{{t: t}}
	for depth := 0; len(level) > 0; depth++ {
		times := map[reflect.Type]int{}
		for _, e := range level {
			times[e.t]++
		}
		var next []embedded
		for _, e := range level {
			if explored[e.t] {
				continue // embedded at this depth again, or already shallower
			}
			explored[e.t] = true
			for i := range e.t.NumField() {
				f := e.t.Field(i)
				m, ok := jsonField(f)
				if !ok {
					continue
				}
				index := append(slices.Clip(e.index), i)
				if m.embed {
					ft := f.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					next = append(next, embedded{ft, index})
					continue
				}
				c := candidate{Field{Key: m.name, Path: index, StructField: f}, depth, m.tagged}
				found = append(found, c)
				if times[e.t] > 1 {
					found = append(found, c) // the same type embedded twice: its fields collide with themselves
				}
			}
		}
		level = next
	}
	// Decide each name: among the shallowest candidates, the only one, or
	// else the only tagged one; otherwise nobody gets it.
	slices.SortStableFunc(found, func(a, b candidate) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if a.depth != b.depth {
			return a.depth - b.depth
		}
		switch {
		case a.tagged == b.tagged:
			return 0
		case a.tagged:
			return -1
		}
		return 1
	})
	var out []Field
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].Key == found[i].Key {
			j++
		}
		first := found[i]
		if j == i+1 || found[i+1].depth > first.depth || found[i+1].tagged != first.tagged {
			out = append(out, first.Field)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Path, b.Path) })
	return out
}

// listSource lists the fields of input struct t (at index prefix) that
// read from source tag: those it tags, and in a group every exported
// field, named by the tag or else by its Go name. A field tagged with
// the source and no name whose type is a struct that does not decode
// itself from text is a group: its fields are listed in its place. An
// embedded struct the tag does not name is flattened, as encoding/json
// flattens one, by value only: through a pointer there may be nothing to
// fill.
func listSource(t reflect.Type, tag string, prefix []int, group bool, out []Field) []Field {
	for i := range t.NumField() {
		f := t.Field(i)
		index := append(slices.Clip(prefix), i)
		v, has := f.Tag.Lookup(tag)
		switch {
		case v == "-":
			continue
		case f.Anonymous && !has && f.Type.Kind() == reflect.Struct:
			out = listSource(f.Type, tag, index, group, out)
			continue
		case !f.IsExported() || (!has && !group):
			continue
		case has && IsGroup(f, tag):
			out = listSource(f.Type, tag, index, true, out)
			continue
		}
		out = append(out, Field{Key: Name(f, tag), Path: index, StructField: f})
	}
	return out
}

// IsGroup reports whether f, a field tagged tag, is a group of values of
// that source: tagged with no name (query:""), of a struct type that does
// not decode itself from text.
func IsGroup(f reflect.StructField, tag string) bool {
	name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
	return name == "" && f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(textUnmarshaler)
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// GoName names the Go field of t at index, through embedded structs and
// groups: "listIn.Page.Limit" is "Page.Limit".
func GoName(t reflect.Type, index []int) string {
	names := make([]string, len(index))
	for i, x := range index {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f := t.Field(x)
		names[i], t = f.Name, f.Type
	}
	return strings.Join(names, ".")
}

// jsonMember is how encoding/json reads a struct field: the member's
// name, whether a tag chose it, and whether the field is embedded (its
// fields promoted to the outer object, a struct through a pointer or
// not).
type jsonMember struct {
	name   string
	tagged bool
	embed  bool
}

// onlySuffix marks a tag made by Only.
const onlySuffix = "!"

// Only is tag restricted to the fields that carry it: an input struct
// mixes path, query, header and cookie fields with services, so an
// untagged field is none of its query values. List and Name accept it
// wherever they accept tag. For it, List reads groups (a struct field
// tagged query:"", whose fields are all query values) and flattens
// embedded structs: an input struct composes.
func Only(tag string) string { return tag + onlySuffix }

// OnlyOf is the tag Only restricted, and whether tag is one Only made.
func OnlyOf(tag string) (string, bool) { return strings.CutSuffix(tag, onlySuffix) }

// Name is the name the client uses for f under tag.
func Name(f reflect.StructField, tag string) string {
	tag = strings.TrimSuffix(tag, onlySuffix)
	name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
	if name == "" {
		return f.Name
	}
	return name
}
