package config

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/validate"
)

// plan is how Load fills one struct type, read from its tags once.
type plan struct {
	fields []field
	byKey  map[string]int      // the validator's name for a field → its position
	rules  *validate.Validator // nil when no field has a rule
}

// field is one configurable field.
type field struct {
	pos, index int
	name       string // the Go name, for messages about the tags
	flag       string // "" for none
	env        []string
	help       string
	def        *string // the default tag's text; nil without one
	requires   []int   // the positions of the fields its requires tag names
	kind       reflect.Kind
	secret     bool // its default is not shown by -h
	set        func(v reflect.Value, s string) error
}

var plans sync.Map // reflect.Type → *plan, or error

func planOf(t reflect.Type) (*plan, error) {
	if p, ok := plans.Load(t); ok {
		if err, isErr := p.(error); isErr {
			return nil, err
		}
		return p.(*plan), nil
	}
	p, err := compile(t)
	if err != nil {
		plans.Store(t, err)
		return nil, err
	}
	plans.Store(t, p)
	return p, nil
}

var (
	typeDuration        = reflect.TypeFor[time.Duration]()
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	typeSecret          = reflect.TypeFor[Secret]()
	typeURL             = reflect.TypeFor[URL]()
)

// compile reads the tags of struct type t. Every error is the program's:
// a tag that cannot be applied.
func compile(t reflect.Type) (*plan, error) {
	p := &plan{byKey: map[string]int{}}
	requires := map[int]string{}
	flags := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("config: %v.%s: %s", t, sf.Name, fmt.Sprintf(format, args...))
		}
		f := field{pos: len(p.fields), index: i, name: sf.Name, flag: sf.Tag.Get("flag"), help: sf.Tag.Get("usage"),
			kind: sf.Type.Kind(), secret: sf.Type == typeSecret || sf.Type == typeURL}
		if env := sf.Tag.Get("env"); env != "" {
			for name := range strings.SplitSeq(env, ",") {
				if name = strings.TrimSpace(name); name != "" {
					f.env = append(f.env, name)
				}
			}
		}
		switch {
		case f.flag == "-" || strings.HasPrefix(f.flag, "-"):
			return nil, bad("flag:%q: name the flag without a dash; a field without a flag has no flag tag", f.flag)
		case strings.ContainsAny(f.flag, "=/~ \t,"):
			return nil, bad("flag:%q: a flag's name holds no =, /, ~, comma or space", f.flag)
		case f.flag == "" && len(f.env) == 0:
			return nil, bad("has neither a flag nor an env tag: tag it, or unexport it")
		case flags[f.flag]:
			return nil, bad("flag -%s is given to two fields", f.flag)
		}
		if f.flag != "" {
			flags[f.flag] = true
		}
		set, err := setter(sf.Type)
		if err != nil {
			return nil, bad("%v", err)
		}
		f.set = set
		if def, ok := sf.Tag.Lookup("default"); ok {
			if err := set(reflect.New(sf.Type).Elem(), def); err != nil {
				return nil, bad("default %q: %v", def, err)
			}
			f.def = &def
		}
		if r := sf.Tag.Get("requires"); r != "" {
			requires[f.pos] = r
		}
		p.byKey[inputfields.Name(sf, "flag")] = f.pos
		p.fields = append(p.fields, f)
	}
	for pos := range p.fields {
		names, ok := requires[pos]
		if !ok {
			continue
		}
		for name := range strings.SplitSeq(names, ",") {
			name = strings.TrimSpace(name)
			other := -1
			for j := range p.fields {
				if p.fields[j].flag == name || (p.fields[j].flag == "" && p.fields[j].name == name) {
					other = j
				}
			}
			if other < 0 || other == pos {
				return nil, fmt.Errorf("config: %v.%s: requires:%q names no other field (by its flag, or the Go name of one without)",
					t, p.fields[pos].name, name)
			}
			p.fields[pos].requires = append(p.fields[pos].requires, other)
		}
	}
	rules, err := validate.Compile(t, "flag")
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	p.rules = rules
	return p, nil
}

// setter is how a value of type t is read from text: strings, booleans,
// integers, floats, durations (time.ParseDuration), what implements
// encoding.TextUnmarshaler, and slices of these from a comma-separated
// list (spaces around items trimmed, empty items dropped).
func setter(t reflect.Type) (func(reflect.Value, string) error, error) {
	if reflect.PointerTo(t).Implements(typeTextUnmarshaler) {
		return func(v reflect.Value, s string) error {
			return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
		}, nil
	}
	if t == typeDuration {
		return func(v reflect.Value, s string) error {
			d, err := time.ParseDuration(s)
			if err != nil {
				return errors.New("must be a duration, as 1s, 500ms or 1m30s")
			}
			v.SetInt(int64(d))
			return nil
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value, s string) error { v.SetString(s); return nil }, nil
	case reflect.Bool:
		return parsed("must be boolean", strconv.ParseBool, reflect.Value.SetBool), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return parsed("must be integer", func(s string) (int64, error) { return strconv.ParseInt(s, 10, t.Bits()) },
			reflect.Value.SetInt), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return parsed("must be a non-negative integer", func(s string) (uint64, error) { return strconv.ParseUint(s, 10, t.Bits()) },
			reflect.Value.SetUint), nil
	case reflect.Float32, reflect.Float64:
		return parsed("must be number", func(s string) (float64, error) { return strconv.ParseFloat(s, t.Bits()) },
			reflect.Value.SetFloat), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Slice {
			break
		}
		elem, err := setter(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(v reflect.Value, s string) error {
			var items []string
			for item := range strings.SplitSeq(s, ",") {
				if item = strings.TrimSpace(item); item != "" {
					items = append(items, item)
				}
			}
			list := reflect.MakeSlice(t, len(items), len(items))
			for i, item := range items {
				if err := elem(list.Index(i), item); err != nil {
					return fmt.Errorf("item %d: %w", i+1, err)
				}
			}
			v.Set(list)
			return nil
		}, nil
	}
	return nil, fmt.Errorf("cannot read %v from text: use a string, a number, a boolean, a time.Duration, "+
		"a slice of them, or a type implementing encoding.TextUnmarshaler", t)
}

// parsed is the setter of a scalar kind: parse reads the text, set
// stores the value; msg is the error of text that does not parse.
func parsed[T any](msg string, parse func(string) (T, error), set func(reflect.Value, T)) func(reflect.Value, string) error {
	return func(v reflect.Value, s string) error {
		n, err := parse(s)
		if err != nil {
			return errors.New(msg)
		}
		set(v, n)
		return nil
	}
}

// usage is the flag's line in -h: its usage tag and the variables it
// reads.
func (f *field) usage(env []string) string {
	s := f.help
	if len(env) > 0 {
		if s != "" {
			s += " "
		}
		s += "(env " + strings.Join(env, ", ") + ")"
	}
	return s
}
