package app

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/burrow-go/burrow/httpx"
)

// A validator checks one struct type against the constraints in its
// fields' tags, compiled once at start-up:
//
//	validate:"required,min=1,max=64,len=8,enum=a|b|c,format=email"
//	pattern:"^[a-z]+$"
//
// min, max and len count characters of a string, items of a slice and
// entries of a map, and bound the value of a number. A field that is not
// required is checked only when it is not its zero value, so "absent"
// and "empty" are the same thing — except numbers, whose zero is a value
// their bounds apply to; use a pointer to make a number optional.
// Nested structs, pointers to structs and slices of structs are checked
// field by field.
type validator struct {
	fields []fieldRules
}

type fieldRules struct {
	index    int
	name     string // as the client wrote it: the json, query or param name
	required bool
	checks   []check
	child    *validator // struct, *struct, []struct or []*struct
}

type check struct {
	rule string
	ok   func(v reflect.Value) bool
	msg  string
}

// validators caches compiled validators by type and naming tag.
var validators sync.Map // validatorKey → *validator

type validatorKey struct {
	t   reflect.Type
	tag string
}

// compileValidator returns the validator of struct type t, whose fields
// are named by tag ("json", "query" or "param"). It is nil when no field
// of t (or of a nested struct) has a constraint.
func compileValidator(t reflect.Type, tag string) (*validator, error) {
	return compileValidatorSeen(t, tag, map[reflect.Type]bool{})
}

func compileValidatorSeen(t reflect.Type, tag string, seen map[reflect.Type]bool) (*validator, error) {
	key := validatorKey{t, tag}
	if v, ok := validators.Load(key); ok {
		return v.(*validator), nil
	}
	if seen[t] {
		return nil, nil // a recursive type: its constraints are checked at the outer level
	}
	seen[t] = true
	v := &validator{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fr := fieldRules{index: i, name: fieldName(f, tag)}
		if fr.name == "-" {
			continue
		}
		if err := fr.parse(f); err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.Name, err)
		}
		if st := structOf(f.Type); st != nil {
			child, err := compileValidatorSeen(st, tag, seen)
			if err != nil {
				return nil, err
			}
			fr.child = child
		}
		if fr.required || len(fr.checks) > 0 || fr.child != nil {
			v.fields = append(v.fields, fr)
		}
	}
	if len(v.fields) == 0 {
		v = nil
	}
	validators.Store(key, v)
	return v, nil
}

// structOf is the struct type a field holds directly or through a pointer
// or slice, if any.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && t != reflect.TypeFor[time.Time]() {
		return t
	}
	return nil
}

// fieldName is the name the client uses for f under tag.
func fieldName(f reflect.StructField, tag string) string {
	name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
	if name == "" {
		return f.Name
	}
	return name
}

var (
	uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	formats     = map[string]func(string) bool{
		"email": func(s string) bool {
			a, err := mail.ParseAddress(s)
			return err == nil && a.Address == s && a.Name == ""
		},
		"uuid": uuidPattern.MatchString,
		"uri": func(s string) bool {
			u, err := url.Parse(s)
			return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
		},
		"date-time": func(s string) bool { _, err := time.Parse(time.RFC3339, s); return err == nil },
		"date":      func(s string) bool { _, err := time.Parse(time.DateOnly, s); return err == nil },
		"ipv4": func(s string) bool {
			ip := net.ParseIP(s)
			return ip != nil && ip.To4() != nil && !strings.Contains(s, ":")
		},
		"ipv6": func(s string) bool { ip := net.ParseIP(s); return ip != nil && strings.Contains(s, ":") },
	}
)

// parse reads f's validate and pattern tags.
func (fr *fieldRules) parse(f reflect.StructField) error {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := f.Tag.Lookup("pattern"); ok {
		if t.Kind() != reflect.String {
			return fmt.Errorf("%w: pattern on %v", ErrInvalidConstraint, t)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("%w: pattern: %w", ErrInvalidConstraint, err)
		}
		fr.checks = append(fr.checks, check{"pattern", func(v reflect.Value) bool { return re.MatchString(v.String()) },
			fmt.Sprintf("must match pattern %q", p)})
	}
	spec := f.Tag.Get("validate")
	if spec == "" {
		return nil
	}
	for _, part := range strings.Split(spec, ",") {
		rule, arg, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch rule {
		case "required":
			fr.required = true
		case "min", "max", "len":
			c, err := boundCheck(rule, arg, t)
			if err != nil {
				return err
			}
			fr.checks = append(fr.checks, c)
		case "enum":
			if arg == "" {
				return fmt.Errorf("%w: enum needs values, as enum=a|b", ErrInvalidConstraint)
			}
			allowed := strings.Split(arg, "|")
			if t.Kind() != reflect.String {
				return fmt.Errorf("%w: enum on %v", ErrInvalidConstraint, t)
			}
			fr.checks = append(fr.checks, check{"enum", func(v reflect.Value) bool {
				s := v.String()
				for _, a := range allowed {
					if s == a {
						return true
					}
				}
				return false
			}, "must be equal to one of the allowed values: " + strings.Join(allowed, ", ")})
		case "format":
			ok := formats[arg]
			if ok == nil || t.Kind() != reflect.String {
				return fmt.Errorf("%w: format %q on %v", ErrInvalidConstraint, arg, t)
			}
			fr.checks = append(fr.checks, check{"format", func(v reflect.Value) bool { return ok(v.String()) },
				fmt.Sprintf("must match format %q", arg)})
		case "":
		default:
			return fmt.Errorf("%w: unknown rule %q", ErrInvalidConstraint, rule)
		}
	}
	return nil
}

// boundCheck builds min, max or len for type t.
func boundCheck(rule, arg string, t reflect.Type) (check, error) {
	bad := func() (check, error) {
		return check{}, fmt.Errorf("%w: %s=%q on %v", ErrInvalidConstraint, rule, arg, t)
	}
	cmp := func(n, bound float64) bool {
		switch rule {
		case "min":
			return n >= bound
		case "max":
			return n <= bound
		}
		return n == bound
	}
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return bad()
		}
		unit := "items"
		count := func(v reflect.Value) int { return v.Len() }
		switch t.Kind() {
		case reflect.String:
			unit = "characters"
			count = func(v reflect.Value) int { return utf8.RuneCountInString(v.String()) }
		case reflect.Map:
			unit = "properties"
		}
		msg := map[string]string{
			"min": "must NOT have fewer than %d %s", "max": "must NOT have more than %d %s", "len": "must have exactly %d %s",
		}[rule]
		return check{rule, func(v reflect.Value) bool { return cmp(float64(count(v)), float64(n)) }, fmt.Sprintf(msg, n, unit)}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		bound, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			return bad()
		}
		value := func(v reflect.Value) float64 {
			switch {
			case v.CanInt():
				return float64(v.Int())
			case v.CanUint():
				return float64(v.Uint())
			}
			return v.Float()
		}
		op := map[string]string{"min": ">=", "max": "<=", "len": "=="}[rule]
		return check{rule, func(v reflect.Value) bool { return cmp(value(v), bound) }, fmt.Sprintf("must be %s %s", op, arg)}, nil
	}
	return bad()
}

// validate appends to out every constraint v (a struct) breaks, with
// paths under prefix ("body", "querystring", "params").
func (vd *validator) validate(v reflect.Value, prefix string, out []httpx.FieldError) []httpx.FieldError {
	if vd == nil {
		return out
	}
	for i := range vd.fields {
		fr := &vd.fields[i]
		f := v.Field(fr.index)
		path := prefix + "/" + fr.name
		if f.IsZero() {
			if fr.required {
				out = append(out, httpx.FieldError{Path: path, Rule: "required", Message: "is required"})
				continue
			}
			if !isNumber(f.Kind()) {
				continue // absent
			}
		}
		for f.Kind() == reflect.Pointer {
			f = f.Elem()
		}
		for _, c := range fr.checks {
			if !c.ok(f) {
				out = append(out, httpx.FieldError{Path: path, Rule: c.rule, Message: c.msg})
			}
		}
		if fr.child == nil {
			continue
		}
		switch f.Kind() {
		case reflect.Struct:
			out = fr.child.validate(f, path, out)
		case reflect.Slice, reflect.Array:
			for j := range f.Len() {
				e := f.Index(j)
				for e.Kind() == reflect.Pointer && !e.IsNil() {
					e = e.Elem()
				}
				if e.Kind() == reflect.Struct {
					out = fr.child.validate(e, path+"/"+strconv.Itoa(j), out)
				}
			}
		}
	}
	return out
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// validationError is the 400 for failing fields.
func validationError(fields []httpx.FieldError) error {
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Path + " " + f.Message
	}
	return &httpx.Error{
		StatusCode: 400, Code: "FST_ERR_VALIDATION",
		Message: strings.Join(msgs, ", "), Validation: fields,
	}
}
