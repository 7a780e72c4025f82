package app

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

var (
	typeJSONMarshaler = reflect.TypeFor[json.Marshaler]()
	typeTextMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	typeJSONAppender  = reflect.TypeFor[httpx.JSONAppender]()
)

// checkEncodable refuses, at Ready, the reply type t of a typed route
// when encoding/json cannot encode it: a channel, a function, a complex
// number or an unsafe pointer, anywhere in it, or a map whose keys are
// none of a string, an integer or a TextMarshaler. Every reply would be
// a 500 otherwise. An interface may hold anything, so it passes.
func checkEncodable(t reflect.Type) error {
	if t == nil {
		return nil
	}
	if where := unencodable(t, map[reflect.Type]bool{}); where != "" {
		return errkind.New(ErrInvalidHandler, "replies with %v, which cannot be encoded as JSON: %s", t, where)
	}
	return nil
}

// unencodable says what in t encoding/json cannot encode, or "". seen
// holds the types being walked, so a recursive type ends.
func unencodable(t reflect.Type, seen map[reflect.Type]bool) string {
	if seen[t] || encodesItself(t) {
		return ""
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Sprintf("%v is a %s", t, kindName(t.Kind()))
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return unencodable(t.Elem(), seen)
	case reflect.Map:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String, k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr,
			k.Implements(typeTextMarshaler), reflect.PointerTo(k).Implements(typeTextMarshaler):
		default:
			return fmt.Sprintf("%v has keys of type %v, which are none of a string, an integer or an encoding.TextMarshaler", t, k)
		}
		return unencodable(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("json") == "-" || (!f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct)) {
				continue // not encoded
			}
			if where := unencodable(f.Type, seen); where != "" {
				return fmt.Sprintf("field %s: %s", f.Name, where)
			}
		}
	}
	return ""
}

// encodesItself reports whether a value of t writes its own JSON or
// text (a method on *t counts: Send encodes from a copy it can address
// only sometimes, and a false refusal would stop a server that works).
func encodesItself(t reflect.Type) bool {
	for _, i := range [...]reflect.Type{typeJSONMarshaler, typeTextMarshaler, typeJSONAppender} {
		if t.Implements(i) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(i)) {
			return true
		}
	}
	return false
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Chan:
		return "channel"
	case reflect.Func:
		return "function"
	case reflect.UnsafePointer:
		return "unsafe pointer"
	}
	return "complex number"
}
