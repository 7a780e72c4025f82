// Package jsonscan reads JSON bodies strictly. Check is the pass Burrow
// makes over a body before encoding/json decodes it: it refuses what
// encoding/json accepts but an API should not — an object with the same
// key twice, a key that names a struct field only when case is folded,
// nesting past a bound — and tracks structure only, leaving syntax
// errors to the decoder, which reports them better. Decoder is the fast
// path in front of both: one pass that decodes the common body shapes
// under the same rules, and gives up on anything else. IsNumber is JSON's
// number grammar, which text values are read by too.
package jsonscan

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/internal/echo"
)

// maxKeyEcho is how much of a client's key an error repeats, as much as a
// validation failure's path repeats of a map key: two duplicate keys of
// 300 KB each would otherwise make a 400 of 900 KB.
const maxKeyEcho = 64

// Names is what the scan knows of the Go value a JSON
// value is decoded into, so that one body has one meaning: a key names a
// struct field exactly, or names none. encoding/json also fills a field
// from a key that equals its name only when case is folded ("MESSAGE",
// or U+212A KELVIN SIGN for "k"), and the last such key wins, while a
// proxy, a log or another decoder reads the first or none. The scan
// refuses a body with such a key, so that in what passes every key names
// the same field for case-insensitive and exact-name decoders. (Names
// only: strings are left as encoding/json reads them, invalid UTF-8
// replaced, which an exact decoder such as encoding/json/v2 refuses.)
// Compiled once per body type at Ready; nil where nothing below is a
// struct.
type Names struct {
	kind   reflect.Kind      // Struct, Slice (also arrays) or Map
	fields map[string]*Names // Struct: field name → its value's names
	folded map[string]string // Struct: folded field name → field name
	elem   *Names            // Slice, Map: the elements' or values' names
}

var (
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Compile returns the names of type t, nil when nothing in t is a struct
// whose names matter.
func Compile(t reflect.Type) *Names {
	return compile(t, map[reflect.Type]*Names{})
}

// compile returns the names of type t. The map makes recursive types
// refer to themselves.
func compile(t reflect.Type, seen map[reflect.Type]*Names) *Names {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(typeJSONUnmarshaler) || pt.Implements(typeTextUnmarshaler) {
		return nil // it reads its own bytes, names and all
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		elem := compile(t.Elem(), seen)
		if elem == nil {
			return nil
		}
		kind := reflect.Slice
		if t.Kind() == reflect.Map {
			kind = reflect.Map
		}
		return &Names{kind: kind, elem: elem}
	case reflect.Struct:
	default:
		return nil
	}
	if n, ok := seen[t]; ok {
		return n
	}
	n := &Names{kind: reflect.Struct, fields: map[string]*Names{}, folded: map[string]string{}}
	seen[t] = n
	for _, f := range inputfields.List(t, "json") {
		n.fields[f.Key] = compile(f.Type, seen)
		if folded := string(appendFolded(nil, f.Key)); n.folded[folded] == "" {
			n.folded[folded] = f.Key
		}
	}
	return n
}

// member returns the names of the value under key in an object decoded
// with n, and the field key was meant for when it names one only by
// folding case.
func (n *Names) member(key string) (*Names, string) {
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

// Check rejects what encoding/json accepts but an API should not: an
// object with the same key twice (parsers disagree on which value wins,
// which is how one request can mean two things), a key that names a
// field of the value decoded (described by names) only when case is
// folded, for the same reason, and nesting deeper than maxDepth. It only
// tracks structure; syntax errors are left to the decoder, which reports
// them better.
func Check(data []byte, maxDepth int, names *Names) error {
	type frame struct {
		object bool
		keys   map[string]struct{}
		names  *Names // of this object or array
		member *Names // of the value of the object's current key
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return fmt.Errorf("JSON nested deeper than %d levels", maxDepth)
			}
			n := names // the top level's
			if len(stack) > 0 {
				n = nil
				if top := &stack[len(stack)-1]; top.object {
					n = top.member
				} else if top.names != nil {
					n = top.names.elem
				}
			}
			if n != nil && (c == '[') != (n.kind == reflect.Slice) {
				n = nil // the wrong type: the decoder says so
			}
			stack = append(stack, frame{object: c == '{', names: n})
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			j, escaped := stringEnd(data, i)
			if j >= len(data) {
				return nil // unterminated: the decoder says so
			}
			if expectKey && len(stack) > 0 {
				// Keys are compared as the decoder will see them: escapes
				// resolved and invalid UTF-8 turned into U+FFFD, so two
				// different invalid byte sequences are the same key.
				key := string(data[i+1 : j])
				if (escaped || !utf8.ValidString(key)) && json.Unmarshal(data[i:j+1], &key) != nil {
					return nil
				}
				top := &stack[len(stack)-1]
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				if _, dup := top.keys[key]; dup {
					return fmt.Errorf("duplicate key %q in JSON object", echo.Cut(key, maxKeyEcho))
				}
				top.keys[key] = struct{}{}
				var field string
				if top.member, field = top.names.member(key); field != "" {
					return fmt.Errorf("key %q differs from field %q only in case; names must match exactly", echo.Cut(key, maxKeyEcho), field)
				}
				expectKey = false
			}
			i = j
		}
	}
	return nil
}

// stringEnd returns the index of the quote closing the string at data[i]
// ('"'), len(data) or more when there is none, and whether the string
// holds escapes. Only structure: what the escapes say is not checked.
func stringEnd(data []byte, i int) (end int, escaped bool) {
	j := i + 1
	for ; j < len(data) && data[j] != '"'; j++ {
		if data[j] == '\\' {
			escaped = true
			j++
		}
	}
	return j, escaped
}
