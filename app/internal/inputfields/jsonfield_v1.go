//go:build !goexperiment.jsonv2

package inputfields

import (
	"reflect"
	"strings"
	"unicode"
)

// jsonField is how encoding/json's original implementation, Go 1.26's,
// reads struct field f, and whether f takes part in decoding at all. A
// tag's name counts only when made of letters, digits and punctuation
// other than quotes and backslash; otherwise the field keeps its Go name.
// Options other than a name mean nothing to naming.
func jsonField(f reflect.StructField) (jsonMember, bool) {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !f.IsExported() && (!f.Anonymous || t.Kind() != reflect.Struct) {
		return jsonMember{}, false // an unexported embedded struct still promotes its exported fields
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return jsonMember{}, false
	}
	m := jsonMember{name: f.Name}
	if name, _, _ := strings.Cut(tag, ","); validJSONName(name) {
		m.name, m.tagged = name, true
	}
	m.embed = f.Anonymous && !m.tagged && t.Kind() == reflect.Struct
	return m, true
}

// validJSONName reports whether encoding/json takes a tag's name as given:
// letters, digits and punctuation other than quotes and backslash.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r) {
			return false
		}
	}
	return true
}
