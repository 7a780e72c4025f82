package app

import (
	"encoding"
	"encoding/json"
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app/internal/inputfields"
)

// jsonNames is what the strict JSON scan knows of the Go value a JSON
// value is decoded into, so that one body has one meaning: a key names a
// struct field exactly, or names none. encoding/json also fills a field
// from a key that equals its name only when case is folded ("MESSAGE",
// or U+212A KELVIN SIGN for "k"), and the last such key wins, while a
// proxy, a log or another decoder reads the first or none. The scan
// refuses a body with such a key, so that what passes decodes the same
// with case-insensitive and exact-name decoders. Compiled once per body
// type at Ready; nil where nothing below is a struct.
type jsonNames struct {
	kind   reflect.Kind          // Struct, Slice (also arrays) or Map
	fields map[string]*jsonNames // Struct: field name → its value's names
	folded map[string]string     // Struct: folded field name → field name
	elem   *jsonNames            // Slice, Map: the elements' or values' names
}

var (
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// compileJSONNames returns the names of type t. The map makes recursive
// types refer to themselves.
func compileJSONNames(t reflect.Type, seen map[reflect.Type]*jsonNames) *jsonNames {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(typeJSONUnmarshaler) || pt.Implements(typeTextUnmarshaler) {
		return nil // it reads its own bytes, names and all
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		elem := compileJSONNames(t.Elem(), seen)
		if elem == nil {
			return nil
		}
		kind := reflect.Slice
		if t.Kind() == reflect.Map {
			kind = reflect.Map
		}
		return &jsonNames{kind: kind, elem: elem}
	case reflect.Struct:
	default:
		return nil
	}
	if n, ok := seen[t]; ok {
		return n
	}
	n := &jsonNames{kind: reflect.Struct, fields: map[string]*jsonNames{}, folded: map[string]string{}}
	seen[t] = n
	for _, f := range inputfields.List(t, "json") {
		n.fields[f.Key] = compileJSONNames(f.Type, seen)
		if folded := string(appendFolded(nil, f.Key)); n.folded[folded] == "" {
			n.folded[folded] = f.Key
		}
	}
	return n
}

// member returns the names of the value under key in an object decoded
// with n, and the field key was meant for when it names one only by
// folding case.
func (n *jsonNames) member(key string) (*jsonNames, string) {
	switch {
	case n == nil:
		return nil, ""
	case n.kind == reflect.Map:
		return n.elem, ""
	case n.kind != reflect.Struct:
		return nil, ""
	}
	if v, ok := n.fields[key]; ok {
		return v, ""
	}
	var buf [64]byte
	return nil, n.folded[string(appendFolded(buf[:0], key))]
}

// appendFolded appends s with every rune replaced by the smallest rune
// of its case-folding orbit, so that two names fold alike exactly when
// encoding/json (and strings.EqualFold) would match them.
func appendFolded(b []byte, s string) []byte {
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b, s = append(b, c), s[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b, s = utf8.AppendRune(b, least), s[size:]
	}
	return b
}
