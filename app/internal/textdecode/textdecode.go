// Package textdecode fills struct fields from text values, the query
// string's or the path parameters': strings, booleans, integers, floats
// (numbers written as JSON writes them), encoding.TextUnmarshaler,
// pointers to them, and slices of them from a repeated key. A Decoder is compiled once per type at start-up, so a
// type it cannot fill fails there; at run time a value that does not
// convert becomes a field error in the shape of a validation answer.
package textdecode

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/jsonscan"
	"github.com/burrow-go/burrow/httpx"
)

// Decoder fills the fields of one struct type from text values.
type Decoder struct {
	fields []textField
	lists  bool // a slice field reads each value as a comma-separated list
}

type textField struct {
	index int                                                           // the field's, in the struct
	path  []int                                                         // or, for one in an embedded struct or a group, its path; nil otherwise
	name  string                                                        // for messages, as the tag spells it
	key   string                                                        // what get is asked for: name, or its canonical form
	def   []string                                                      // the default tag's value, used when the name is absent; nil without
	one   func(f reflect.Value, s string) (kind string, ok bool)        // nil for a slice
	many  func(f reflect.Value, values []string) (kind string, ok bool) // a slice's
}

var typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Compile builds the decoder of struct type t, its fields named by tag
// ("query", "param", or inputfields.Only of "query", "path", "header" or
// "cookie" for an input struct). A field's default tag is the text it
// takes when its name is absent; it must convert, or Compile fails.
func Compile(t reflect.Type, tag string) (*Decoder, error) {
	return CompileExcept(t, tag, nil)
}

// CompileExcept is Compile leaving out the fields for which skip, when
// not nil, is true: those another decoder fills (a form's files).
func CompileExcept(t reflect.Type, tag string, skip func(reflect.StructField) bool) (*Decoder, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%v must be a struct", t)
	}
	d := &Decoder{}
	for _, f := range inputfields.List(t, tag) {
		if skip != nil && skip(f.StructField) {
			continue
		}
		one, many, err := textSetter(f.Type)
		if err != nil {
			if base, only := inputfields.OnlyOf(tag); only && f.Type.Kind() == reflect.Struct {
				err = fmt.Errorf("%w; to read its fields as %s values, tag it %s:\"\"", err, base, base)
			}
			return nil, fmt.Errorf("%v.%s: %w", t, inputfields.GoName(t, f.Path), err)
		}
		tf := textField{index: f.Path[0], name: f.Key, key: f.Key, one: one, many: many}
		if len(f.Path) > 1 {
			tf.path = f.Path
		}
		if def, ok := f.Tag.Lookup("default"); ok {
			tf.def = []string{def}
			if _, ok := tf.setAll(reflect.New(f.Type).Elem(), tf.def); !ok {
				return nil, fmt.Errorf("%v.%s: default %q does not convert to %v", t, f.Name, def, f.Type)
			}
		}
		d.fields = append(d.fields, tf)
	}
	return d, nil
}

// Empty reports whether the decoder fills no field.
func (d *Decoder) Empty() bool { return len(d.fields) == 0 }

// Has reports whether a field of the decoder is asked for as key.
func (d *Decoder) Has(key string) bool {
	for i := range d.fields {
		if d.fields[i].key == key {
			return true
		}
	}
	return false
}

// Rekey makes get be asked for key(name) instead of each field's name, as
// the tag spells it: headers are looked up by their canonical form
// computed here, once, and still named as written in messages.
func (d *Decoder) Rekey(key func(name string) string) {
	for i := range d.fields {
		d.fields[i].key = key(d.fields[i].name)
	}
}

// SplitLists makes a slice field read each value it is given as an RFC
// 9110 list (§5.6.1): elements separated by commas, spaces and tabs
// around them trimmed, empty ones dropped, a comma inside a quoted string
// part of its element. Headers are lists: a proxy may merge repeated
// lines into one, so two lines and one line of two elements must read
// alike. A default is not split: it is one item, as a query's is.
func (d *Decoder) SplitLists() { d.lists = true }

// textSetter returns how to set a value of type t from its text: one
// for a single value, or many for a slice, which takes every value of a
// repeated key. kind, which each returns, names the expected type in
// messages.
func textSetter(t reflect.Type) (one func(f reflect.Value, s string) (kind string, ok bool),
	many func(f reflect.Value, values []string) (kind string, ok bool), err error) {
	if reflect.PointerTo(t).Implements(typeTextUnmarshaler) {
		return func(f reflect.Value, s string) (string, bool) {
			return "valid " + t.String(), f.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)) == nil
		}, nil, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		elemOne, elemMany, err := textSetter(t.Elem())
		if err != nil {
			return nil, nil, err
		}
		if elemMany != nil {
			return nil, func(f reflect.Value, vs []string) (string, bool) {
				p := reflect.New(t.Elem())
				kind, ok := elemMany(p.Elem(), vs)
				if ok {
					f.Set(p)
				}
				return kind, ok
			}, nil
		}
		return func(f reflect.Value, s string) (string, bool) {
			p := reflect.New(t.Elem())
			kind, ok := elemOne(p.Elem(), s)
			if ok {
				f.Set(p)
			}
			return kind, ok
		}, nil, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			break
		}
		elemOne, elemMany, err := textSetter(t.Elem())
		if err != nil {
			return nil, nil, err
		}
		return nil, func(f reflect.Value, vs []string) (string, bool) {
			s := reflect.MakeSlice(t, len(vs), len(vs))
			for i := range vs {
				var kind string
				var ok bool
				if elemOne != nil {
					kind, ok = elemOne(s.Index(i), vs[i])
				} else {
					kind, ok = elemMany(s.Index(i), vs[i:i+1])
				}
				if !ok {
					return "array of " + kind, false
				}
			}
			f.Set(s)
			return "", true
		}, nil
	case reflect.String:
		return func(f reflect.Value, s string) (string, bool) { f.SetString(s); return "string", true }, nil, nil
	case reflect.Bool:
		return parsed("boolean", strconv.ParseBool, reflect.Value.SetBool), nil, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return parsed("integer", jsonNumber(func(s string) (int64, error) { return strconv.ParseInt(s, 10, bits) }), reflect.Value.SetInt), nil, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		return parsed("a non-negative integer", jsonNumber(func(s string) (uint64, error) { return strconv.ParseUint(s, 10, bits) }), reflect.Value.SetUint), nil, nil
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return parsed("number", jsonNumber(func(s string) (float64, error) { return strconv.ParseFloat(s, bits) }), reflect.Value.SetFloat), nil, nil
	}
	return nil, nil, fmt.Errorf("cannot decode %v from text", t)
}

// jsonNumber reads a number with parse once it is written as JSON writes
// numbers. strconv also reads a plus sign, leading zeros (ParseInt), and
// NaN, infinities, hex and underscores (ParseFloat): a value the client
// cannot send in a JSON body should not pass as text either, and NaN or
// an infinity would fail the JSON reply that echoes it, a 500.
func jsonNumber[T any](parse func(string) (T, error)) func(string) (T, error) {
	return func(s string) (T, error) {
		if !jsonscan.IsNumber(s) {
			var zero T
			return zero, strconv.ErrSyntax
		}
		return parse(s)
	}
}

// parsed is the setter of a scalar kind: parse reads the value and set
// stores it; on a parse error Decode zeroes the field and reports it.
// kind names the type in messages.
func parsed[T any](kind string, parse func(string) (T, error), set func(reflect.Value, T)) func(reflect.Value, string) (string, bool) {
	return func(f reflect.Value, s string) (string, bool) {
		v, err := parse(s)
		set(f, v)
		return kind, err == nil
	}
}

// field is tf's field in v, a struct of the compiled type.
func (tf *textField) field(v reflect.Value) reflect.Value {
	if tf.path != nil {
		return v.FieldByIndex(tf.path)
	}
	return v.Field(tf.index)
}

// setAll sets f from values, of which a single-valued field takes the first.
func (tf *textField) setAll(f reflect.Value, values []string) (string, bool) {
	if tf.many != nil {
		return tf.many(f, values)
	}
	return tf.one(f, values[0])
}

// setOne sets f from one value, without making a slice of it unless f
// is a slice.
func (tf *textField) setOne(f reflect.Value, s string) (string, bool) {
	if tf.one != nil {
		return tf.one(f, s)
	}
	return tf.many(f, []string{s})
}

// Decode fills v (a struct of the compiled type) from get, which returns
// the values of a name (or the field's default when it returns none), and appends to out an error for each field that
// does not convert, its path under prefix; such a field is left zero.
func (d *Decoder) Decode(v reflect.Value, prefix string, get func(name string) []string, out []httpx.FieldError) []httpx.FieldError {
	for i := range d.fields {
		tf := &d.fields[i]
		vs := get(tf.key)
		if d.lists && tf.many != nil {
			vs = splitLists(vs)
		}
		if len(vs) == 0 {
			if vs = tf.def; vs == nil {
				continue
			}
		}
		f := tf.field(v)
		if kind, ok := tf.setAll(f, vs); !ok {
			f.SetZero()
			out = append(out, httpx.FieldError{Path: prefix + "/" + tf.name, Rule: "type", Message: "must be " + kind})
		}
	}
	return out
}

// DecodeOne is Decode for sources with one value a name (path
// parameters, cookies): get returns it and whether it is present. A
// single value is set without making a slice of it.
func (d *Decoder) DecodeOne(v reflect.Value, prefix string, get func(name string) (string, bool), out []httpx.FieldError) []httpx.FieldError {
	for i := range d.fields {
		tf := &d.fields[i]
		s, ok := get(tf.key)
		var list []string // the elements of a list value, when lists are split
		if ok && d.lists && tf.many != nil {
			list = splitLists([]string{s})
			ok = len(list) > 0
		}
		if !ok {
			if tf.def == nil {
				continue
			}
			s, list = tf.def[0], nil
		}
		f := tf.field(v)
		var kind string
		if list != nil {
			kind, ok = tf.many(f, list)
		} else {
			kind, ok = tf.setOne(f, s)
		}
		if !ok {
			f.SetZero()
			out = append(out, httpx.FieldError{Path: prefix + "/" + tf.name, Rule: "type", Message: "must be " + kind})
		}
	}
	return out
}

// splitLists is the elements of the lists vs, each read as SplitLists
// says; vs itself when no value needs splitting or trimming, the common
// case, which allocates nothing.
func splitLists(vs []string) []string {
	if !slices.ContainsFunc(vs, needsSplit) {
		return vs
	}
	var out []string
	for _, v := range vs {
		start, quoted := 0, false
		for i := 0; i <= len(v); i++ {
			if i < len(v) {
				switch c := v[i]; {
				case quoted && c == '\\' && i+1 < len(v):
					i++ // a quoted pair: the next byte is taken as it is
					continue
				case c == '"':
					quoted = !quoted
					continue
				case quoted || c != ',':
					continue
				}
			}
			if e := strings.Trim(v[start:i], " \t"); e != "" {
				out = append(out, e)
			}
			start = i + 1
		}
	}
	return out
}

// needsSplit reports whether a value is not already one list element:
// it is empty, holds a comma, or begins or ends with a space or a tab.
func needsSplit(v string) bool {
	return v == "" || strings.IndexByte(v, ',') >= 0 ||
		v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t'
}
