//go:build goexperiment.jsonv2

package inputfields

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// jsonField is how encoding/json reads struct field f when it is backed
// by encoding/json/v2 (Go 1.27's default, in its Go 1.26-compatible
// mode), and whether f takes part in decoding at all. It differs from Go
// 1.26's reading in two ways that decide which field a key fills:
//
//   - a tag's name is whatever precedes a comma, quote or backslash (so
//     "ü€" is a name, and `a"b` names "a"), where Go 1.26 took only
//     letters, digits and some punctuation and otherwise the Go name;
//   - the option embed promotes a struct field's fields as embedding
//     does, and on a map or jsontext.Value makes it take every unknown
//     member instead of being one.
//
// (Its case:ignore option changes nothing in this mode, and case:strict
// only makes encoding/json skip a key Burrow refuses anyway.)
func jsonField(f reflect.StructField) (jsonMember, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || (!f.IsExported() && !f.Anonymous) {
		return jsonMember{}, false
	}
	m := jsonMember{name: f.Name}
	if tag != "" && !strings.HasPrefix(tag, ",") {
		n := strings.IndexAny(tag, ",\\'\"`")
		switch {
		case n < 0:
			m.name, m.tagged = tag, true
			n = len(tag)
		case tag[n] == ',':
			m.name, m.tagged = tag[:n], true
		default: // malformed: a name that starts as an identifier keeps that much
			if id := identifier(tag); id != "" {
				m.name, m.tagged, n = id, true, len(id)
			}
		}
		m.name = string([]rune(m.name)) // invalid UTF-8 replaced, as encoding/json does
		tag = tag[n:]
	}
	_, options, _ := strings.Cut(tag, ",")
	for _, o := range strings.Split(options, ",") {
		if identifier(o) == "embed" {
			m.embed = true
		}
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f.Anonymous && !m.tagged && t.Kind() == reflect.Struct {
		m.embed = true
	}
	if m.embed && m.tagged {
		m.embed = false // a named field is a member, embed or not
	}
	if m.embed {
		switch {
		case t.Kind() == reflect.Struct:
			return m, true
		case !f.IsExported():
			return jsonMember{}, false
		case t.PkgPath() == "encoding/json/jsontext" && t.Name() == "Value",
			t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && !selfCoding(t.Key()):
			return jsonMember{}, false // it takes the unknown members: no name of its own
		}
		m.embed = false
	}
	if !f.IsExported() && (!f.Anonymous || t.Kind() != reflect.Struct) {
		return jsonMember{}, false
	}
	return m, true
}

// identifier is the Go identifier s starts with, "" if none: how
// encoding/json/v2 reads a tag's option, and a malformed name.
func identifier(s string) string {
	r := []rune(s)
	if len(r) == 0 || (r[0] != '_' && !unicode.IsLetter(r[0])) {
		return ""
	}
	n := len(s) - len(strings.TrimLeftFunc(s, func(r rune) bool {
		return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
	}))
	return s[:n]
}

// selfCoding reports whether t has a method encoding/json calls to encode
// or decode it.
func selfCoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, m := range []reflect.Type{
		reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
	} {
		if t.Implements(m) || pt.Implements(m) {
			return true
		}
	}
	return false
}
