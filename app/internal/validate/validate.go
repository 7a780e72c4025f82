// Package validate checks decoded input against the rules in its struct
// tags (validate:"required,min=1,max=64,enum=a|b,format=email" and
// pattern:"^[a-z]+$", with go-playground/validator's spellings of the
// same rules), compiled once per type at start-up so that a bad tag stops
// start-up, not a request. Failures are reported as field errors whose
// paths use the client's names ("body/items/0/sku"); checking a valid
// value allocates nothing.
package validate

import (
	"encoding"
	"fmt"
	"maps"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/jsonscan"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/echo"
)

// A Validator checks a value against the constraints in the tags of the
// struct types it holds, compiled once at start-up:
//
//	validate:"required,min=1,max=64,len=8,enum=a|b|c,format=email"
//	pattern:"^[a-z]+$"
//
// go-playground/validator's spellings of these rules are accepted too
// (burrowSpelling).
//
// min, max and len count characters of a string, items of a slice and
// entries of a map, and bound the value of a number. A field that is not
// required is checked only when it is not its zero value, so "absent"
// and "empty" are the same thing — except numbers, whose zero is a value
// their bounds apply to (use a pointer to make a number optional), and
// structs and arrays, which are always there: their own fields are
// checked even when the client sent nothing for them, so an omitted or
// empty object cannot skip its required fields. A nil pointer is a value
// the client did not send (absent, or null): its inner rules do not
// apply; tag it required to demand it. Validation descends through
// pointers, slices, arrays and map values to every struct with rules,
// recursive types included.
type Validator struct {
	kind   reflect.Kind // Struct, Pointer, Slice, Array or Map
	fields []fieldRules // Struct
	elem   *Validator   // Pointer, Slice, Array, Map
	self   *fieldRules  // CompileValue's: the rules of the value itself

	// top holds the paths of a struct's fields spelled out under the
	// root last validated, so that a failing field costs no string.
	top atomic.Pointer[topPaths]
}

// topPaths are a struct's field paths under one root: "body/message".
type topPaths struct {
	root  string
	paths []string // by field
}

type fieldRules struct {
	index    []int  // through embedded structs
	name     string // as the client wrote it: the json, query or param name
	typ      reflect.Type
	required bool
	checks   []check
	child    *Validator // what lies below: nil when no rule does
}

type check struct {
	rule string
	ok   func(v reflect.Value) bool
	msg  string
}

// validators caches compiled struct validators by type and naming tag;
// nil means the type holds no rule.
var validators sync.Map // validatorKey → *Validator

type validatorKey struct {
	t   reflect.Type
	tag string
}

// Compile returns the validator of type t, whose struct fields are named
// by tag ("json", "query" or "param"). It is nil when no value t holds
// has a constraint. Every error is a tag Compile cannot apply.
func Compile(t reflect.Type, tag string) (*Validator, error) {
	c := &validatorCompiler{tag: tag, structs: map[reflect.Type]*Validator{}, mine: map[*Validator]bool{}}
	v, err := c.compile(t)
	if err != nil {
		return nil, err
	}
	c.prune()
	for st, sv := range c.structs {
		if !c.live[sv] {
			sv = nil
		}
		validators.Store(validatorKey{st, tag}, sv)
	}
	if !c.reaches(v) {
		return nil, nil
	}
	return v, nil
}

// validatorCompiler compiles the validators of one type and of the types
// it holds. A struct type gets its validator before its fields are
// compiled, so a recursive type refers to itself; whether a validator
// has any rule is known only once the whole graph is built (prune).
type validatorCompiler struct {
	tag     string
	structs map[reflect.Type]*Validator // compiled here
	mine    map[*Validator]bool         // the same, by validator
	live    map[*Validator]bool         // struct validators with a rule in or below them
}

func (c *validatorCompiler) compile(t reflect.Type) (*Validator, error) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		elem, err := c.compile(t.Elem())
		if elem == nil || err != nil {
			return nil, err
		}
		return &Validator{kind: t.Kind(), elem: elem}, nil
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if v, ok := c.structs[t]; ok {
		return v, nil
	}
	if v, ok := validators.Load(validatorKey{t, c.tag}); ok {
		return v.(*Validator), nil // final: nil when it has no rule
	}
	v := &Validator{kind: reflect.Struct}
	c.structs[t], c.mine[v] = v, true
	for _, f := range inputfields.List(t, c.tag) {
		fr := fieldRules{index: f.Path, name: f.Key, typ: f.Type}
		if err := fr.parse(f.StructField); err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, inputfields.GoName(t, f.Path), err)
		}
		child, err := c.compile(f.Type)
		if err != nil {
			return nil, err
		}
		fr.child = child
		v.fields = append(v.fields, fr)
	}
	return v, nil
}

// CompileValue returns the validator of a whole value of f's type that
// holds the rules of f's validate tag itself, failing at the root path
// ("body"): a body that is an array or a map has no field of its own to
// carry min, max or required. Its struct fields are named by tag, as
// Compile names them. required is kept only where the zero value is
// what null decodes to (a pointer, a slice, a map, an interface): for
// other kinds a zero value may be what the client sent ({} or 0), so the
// caller judges presence. It is nil when nothing would be checked.
func CompileValue(f reflect.StructField, tag string) (*Validator, error) {
	fr := fieldRules{name: f.Name, typ: f.Type}
	if err := fr.parse(f); err != nil {
		return nil, err
	}
	switch f.Type.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
	default:
		fr.required = false
	}
	child, err := Compile(f.Type, tag)
	if err != nil {
		return nil, err
	}
	fr.child = child
	if !fr.required && len(fr.checks) == 0 {
		return child, nil
	}
	return &Validator{kind: f.Type.Kind(), self: &fr}, nil
}

// prune finds which struct validators have a rule in or below them (a
// fixed point, since types may be recursive), then drops what leads to
// none.
func (c *validatorCompiler) prune() {
	c.live = map[*Validator]bool{}
	for changed := true; changed; {
		changed = false
		for _, v := range c.structs {
			if c.live[v] {
				continue
			}
			for _, fr := range v.fields {
				if fr.required || len(fr.checks) > 0 || c.reaches(fr.child) {
					c.live[v], changed = true, true
					break
				}
			}
		}
	}
	for _, v := range c.structs {
		kept := v.fields[:0]
		for _, fr := range v.fields {
			if !c.reaches(fr.child) {
				fr.child = nil
			}
			if fr.required || len(fr.checks) > 0 || fr.child != nil {
				kept = append(kept, fr)
			}
		}
		v.fields = kept
	}
}

// reaches reports whether v leads to a struct validator with rules.
func (c *validatorCompiler) reaches(v *Validator) bool {
	for v != nil && v.kind != reflect.Struct {
		v = v.elem
	}
	if v == nil {
		return false
	}
	return c.live[v] || !c.mine[v] // one from the cache is final: it has rules
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
		"weblink":   weblink,
		"date-time": func(s string) bool { _, err := time.Parse(time.RFC3339, s); return err == nil },
		"date":      func(s string) bool { _, err := time.Parse(time.DateOnly, s); return err == nil },
		"ipv4": func(s string) bool {
			ip := net.ParseIP(s)
			return ip != nil && ip.To4() != nil && !strings.Contains(s, ":")
		},
		"ipv6": func(s string) bool { ip := net.ParseIP(s); return ip != nil && strings.Contains(s, ":") },
	}
)

// weblink is format=weblink: an absolute http or https URL with a host
// and no user information — what is safe to render as a link or an
// image's source. format=uri takes any scheme, as JSON Schema says, and
// so javascript:alert(1), which a page rendering it as a link runs; a
// user name before the host ("https://bank.example@evil.example") only
// serves to mislead the reader. A space, which a URI escapes, is refused
// too.
func weblink(s string) bool {
	if strings.ContainsAny(s, " \\") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Opaque == "" && u.User == nil && u.Hostname() != ""
}

// formatNames lists the formats for a message: "date, date-time, …".
var formatNames = strings.Join(slices.Sorted(maps.Keys(formats)), ", ")

// Rule is one rule of a validate tag, in Burrow's spelling.
type Rule struct{ Name, Arg string }

// Rules reads a validate tag (what the validator checks, and what the
// OpenAPI generator documents, so that the two cannot disagree).
// go-playground/validator's spellings of rules Burrow has are turned
// into Burrow's own, so a struct already tagged for that validator
// works unchanged: email, uuid, url, uri, ipv4 and ipv6 are formats,
// gte and lte are min and max (inclusive, and counting a string's
// characters as min and max do); oneof keeps its name, and Values reads
// its space-separated values. A failing field reports Burrow's rule name.
func Rules(spec string) []Rule {
	if spec == "" {
		return nil
	}
	var rules []Rule
	for part := range strings.SplitSeq(spec, ",") {
		rule, arg, _ := strings.Cut(strings.TrimSpace(part), "=")
		rule, arg = burrowSpelling(rule, arg)
		rules = append(rules, Rule{rule, arg})
	}
	return rules
}

// Required reports whether a validate tag holds the required rule.
func Required(spec string) bool {
	return slices.ContainsFunc(Rules(spec), func(r Rule) bool { return r.Name == "required" })
}

// Values lists the allowed values of an enum (a|b) or oneof (a b) rule.
// oneof's are separated by spaces, and one in single quotes may hold
// some ('New York' Paris), as go-playground/validator reads them; a quote
// that does not enclose a whole value is an error rather than a value
// split where the writer did not mean it.
func (r Rule) Values() ([]string, error) {
	if r.Name != "oneof" {
		return strings.Split(r.Arg, "|"), nil
	}
	stray := func() ([]string, error) {
		return nil, fmt.Errorf("oneof=%s: a quote must enclose a whole value, as 'a b'", r.Arg)
	}
	var values []string
	for s := r.Arg; ; {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return values, nil
		}
		var v string
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("oneof=%s: a quote is not closed", r.Arg)
			}
			v, s = s[1:1+end], s[2+end:]
			if s != "" && strings.TrimLeftFunc(s, unicode.IsSpace) == s {
				return stray()
			}
		} else {
			end := strings.IndexFunc(s, unicode.IsSpace)
			if end < 0 {
				end = len(s)
			}
			if v, s = s[:end], s[end:]; strings.Contains(v, "'") {
				return stray()
			}
		}
		values = append(values, v)
	}
}

// burrowSpelling is Rules' translation of one rule.
func burrowSpelling(rule, arg string) (string, string) {
	switch rule {
	case "email", "uuid", "ipv4", "ipv6", "uri":
		if arg == "" {
			return "format", rule
		}
	case "url":
		if arg == "" {
			return "format", "uri"
		}
	case "gte":
		return "min", arg
	case "lte":
		return "max", arg
	}
	return rule, arg
}

// ruleHints names Burrow's way to say what other validators' rules say.
var ruleHints = map[string]string{
	"gt":       "Burrow's bounds include the bound: use min=",
	"lt":       "Burrow's bounds include the bound: use max=",
	"eq":       "use len= for a size, enum= for a value",
	"ip":       "use format=ipv4 or format=ipv6",
	"datetime": "use format=date-time (RFC 3339) or format=date",
	"dive":     "validation descends into slices and maps of structs by itself: put the rules on the item type's fields",
	"alpha":    `use the pattern tag, as pattern:"^[a-zA-Z]+$"`,
	"alphanum": `use the pattern tag, as pattern:"^[a-zA-Z0-9]+$"`,
	"numeric":  `use the pattern tag, as pattern:"^[0-9]+$"`,
}

// parse reads f's validate and pattern tags.
func (fr *fieldRules) parse(f reflect.StructField) error {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := f.Tag.Lookup("pattern"); ok {
		if t.Kind() != reflect.String {
			return fmt.Errorf("pattern on %v", t)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("pattern: %w", err)
		}
		fr.checks = append(fr.checks, check{"pattern", func(v reflect.Value) bool { return re.MatchString(v.String()) },
			fmt.Sprintf("must match pattern %q", p)})
	}
	spec := f.Tag.Get("validate")
	if spec == "" {
		return nil
	}
	for _, r := range Rules(spec) {
		rule, arg := r.Name, r.Arg
		switch rule {
		case "required":
			fr.required = true
		case "omitempty":
			// Burrow's own rule for what is not required, where the two agree.
			if k := f.Type.Kind(); isNumber(k) || k == reflect.Struct || k == reflect.Array {
				what := "a number"
				switch k {
				case reflect.Struct:
					what = "a struct"
				case reflect.Array:
					what = "an array"
				}
				return fmt.Errorf("omitempty on %v: Burrow checks %s even when it is zero; make the field a pointer to make it optional",
					f.Type, what)
			}
		case "min", "max", "len":
			c, err := boundCheck(rule, arg, t)
			if err != nil {
				return err
			}
			fr.checks = append(fr.checks, c)
		case "enum", "oneof":
			allowed, err := r.Values()
			if err != nil {
				return err
			}
			if arg == "" || len(allowed) == 0 {
				return fmt.Errorf("%s needs values, as enum=a|b or oneof=a b", rule)
			}
			ok, err := enumCheck(rule, allowed, t)
			if err != nil {
				return err
			}
			fr.checks = append(fr.checks, check{"enum", ok, "must be equal to one of the allowed values: " + valueList(allowed)})
		case "format":
			ok := formats[arg]
			if ok == nil {
				return fmt.Errorf("unknown format %q: Burrow's formats are %s", arg, formatNames)
			}
			if t.Kind() != reflect.String {
				return fmt.Errorf("format %q on %v: formats apply to strings", arg, t)
			}
			fr.checks = append(fr.checks, check{"format", func(v reflect.Value) bool { return ok(v.String()) },
				fmt.Sprintf("must match format %q", arg)})
		case "":
		default:
			if hint := ruleHints[rule]; hint != "" {
				return fmt.Errorf("unknown rule %q: %s", rule, hint)
			}
			return fmt.Errorf("unknown rule %q: Burrow's rules are required, min, max, len, enum, format and the pattern tag",
				rule)
		}
	}
	return nil
}

// enumCheck is enum's test of a value of type t: a string, or a number,
// whose allowed values are then read as numbers of t's kind, written as
// JSON writes them (go-playground/validator's oneof takes numbers too).
func enumCheck(rule string, allowed []string, t reflect.Type) (func(reflect.Value) bool, error) {
	switch k := t.Kind(); {
	case k == reflect.String:
		return func(v reflect.Value) bool { return slices.Contains(allowed, v.String()) }, nil
	case k >= reflect.Int && k <= reflect.Int64:
		ns, err := enumNumbers(rule, allowed, t, "an integer", func(s string) (int64, error) { return strconv.ParseInt(s, 10, t.Bits()) })
		return func(v reflect.Value) bool { return slices.Contains(ns, v.Int()) }, err
	case k >= reflect.Uint && k <= reflect.Uintptr:
		ns, err := enumNumbers(rule, allowed, t, "a non-negative integer", func(s string) (uint64, error) { return strconv.ParseUint(s, 10, t.Bits()) })
		return func(v reflect.Value) bool { return slices.Contains(ns, v.Uint()) }, err
	case k == reflect.Float32 || k == reflect.Float64:
		ns, err := enumNumbers(rule, allowed, t, "a number", func(s string) (float64, error) { return strconv.ParseFloat(s, t.Bits()) })
		return func(v reflect.Value) bool { return slices.Contains(ns, v.Float()) }, err
	}
	return nil, fmt.Errorf("%s on %v: Burrow's enum and oneof take strings and numbers", rule, t)
}

// enumNumbers reads an enum's values as numbers with parse; kind names
// what t needs, for the error.
func enumNumbers[T any](rule string, allowed []string, t reflect.Type, kind string, parse func(string) (T, error)) ([]T, error) {
	out := make([]T, len(allowed))
	for i, s := range allowed {
		n, err := parse(s)
		if err != nil || !jsonscan.IsNumber(s) {
			return nil, fmt.Errorf("%s value %q is not %s, as %v needs", rule, s, kind, t)
		}
		out[i] = n
	}
	return out, nil
}

// valueList lists an enum's values for a message, quoting those that
// are empty or hold a space, a comma or a quote.
func valueList(values []string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = v
		if v == "" || strings.ContainsAny(v, " ,'\"") {
			parts[i] = strconv.Quote(v)
		}
	}
	return strings.Join(parts, ", ")
}

// boundCheck builds min, max or len for type t.
func boundCheck(rule, arg string, t reflect.Type) (check, error) {
	bad := func() (check, error) {
		return check{}, fmt.Errorf("%s=%q on %v", rule, arg, t)
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
		return check{rule, func(v reflect.Value) bool { return holds(rule, count(v), n) }, fmt.Sprintf(msg, n, unit)}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		msg := fmt.Sprintf("must be %s %s", map[string]string{"min": ">=", "max": "<=", "len": "=="}[rule], arg)
		// An integer is compared with an integer bound as an integer: as
		// float64, which holds integers exactly only up to 2^53,
		// max=9007199254740992 let 9007199254740993 through.
		if i, err := strconv.ParseInt(arg, 10, 64); err == nil && t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 {
			return check{rule, func(v reflect.Value) bool { return holds(rule, v.Int(), i) }, msg}, nil
		}
		if u, err := strconv.ParseUint(arg, 10, 64); err == nil && t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
			return check{rule, func(v reflect.Value) bool { return holds(rule, v.Uint(), u) }, msg}, nil
		}
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
		return check{rule, func(v reflect.Value) bool { return holds(rule, value(v), bound) }, msg}, nil
	}
	return bad()
}

// holds reports whether n meets the bound of rule (min, max or len).
func holds[T int | int64 | uint64 | float64](rule string, n, bound T) bool {
	switch rule {
	case "min":
		return n >= bound
	case "max":
		return n <= bound
	}
	return n == bound
}

// MaxDepth is how deep a value may nest: deeper is reported, not
// followed. app's JSON scan refuses a body nested deeper, with the same
// bound.
const MaxDepth = 100

// MaxFailures is how many failures one request's answer lists. A body
// of a megabyte of empty objects breaks hundreds of thousands of rules;
// listing them all made a 400 of tens of megabytes. Validate stops once
// out holds more than MaxFailures, so the caller knows some were left
// out, without walking the rest of the value.
const MaxFailures = 100

// Validate appends to out every constraint v breaks, each with its path
// under root ("body", "querystring" or "params"), until out holds more
// than MaxFailures: then it stops, and what is left of v goes unchecked.
func (vd *Validator) Validate(v reflect.Value, root string, out []httpx.FieldError) []httpx.FieldError {
	at := newInputPath(root)
	if vd.self != nil {
		out = vd.self.validate(v, at, out)
		at.free()
		return out
	}
	at.top = vd.topPaths(root)
	out = vd.validate(v, at, out)
	at.free()
	return out
}

// topPaths returns the paths of a struct's fields under root, spelled
// once (a validator serves one root: its route's body, query or params).
func (vd *Validator) topPaths(root string) []string {
	if vd.kind != reflect.Struct {
		return nil
	}
	if tp := vd.top.Load(); tp != nil && tp.root == root {
		return tp.paths
	}
	tp := &topPaths{root: root, paths: make([]string, len(vd.fields))}
	for i, fr := range vd.fields {
		at := inputPath{root: root, segs: []pathSeg{{name: fr.name, index: -1}}}
		tp.paths[i] = at.String()
	}
	vd.top.Store(tp)
	return tp.paths
}

// validate appends to out every constraint v breaks, with paths under
// at's root ("body", "querystring" or "params"). The nesting of v is
// len(at.segs); no decoded JSON body nests deeper than MaxDepth, and
// a value that does (made by a parser or a hook, perhaps cyclic) is
// refused there rather than followed.
func (vd *Validator) validate(v reflect.Value, at *inputPath, out []httpx.FieldError) []httpx.FieldError {
	if !at.more(out) {
		return out
	}
	if vd.kind == reflect.Pointer {
		if v.IsNil() {
			return out // not sent
		}
		return vd.elem.validate(v.Elem(), at, out)
	}
	if at.depth >= MaxDepth {
		return append(out, httpx.FieldError{Path: at.path(), Rule: "depth",
			Message: "is nested deeper than " + strconv.Itoa(MaxDepth) + " levels"})
	}
	at.depth++
	switch vd.kind {
	case reflect.Struct:
		out = vd.validateFields(v, at, out)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len() && at.more(out); i++ {
			at.push(pathSeg{index: i})
			out = vd.elem.validate(v.Index(i), at, out)
			at.pop()
		}
	case reflect.Map:
		out = vd.validateMap(v, at, out)
	}
	at.depth--
	return out
}

// validateFields checks the fields of struct v.
func (vd *Validator) validateFields(v reflect.Value, at *inputPath, out []httpx.FieldError) []httpx.FieldError {
	for i := 0; i < len(vd.fields) && at.more(out); i++ {
		fr := &vd.fields[i]
		f := fieldByIndex(v, fr.index, fr.typ)
		top := len(at.segs) == 0
		at.push(pathSeg{name: fr.name, index: -1})
		if top && at.top != nil {
			at.spelled = at.top[i]
		}
		out = fr.validate(f, at, out)
		at.pop()
	}
	return out
}

// validate checks field value f.
func (fr *fieldRules) validate(f reflect.Value, at *inputPath, out []httpx.FieldError) []httpx.FieldError {
	if f.IsZero() {
		if fr.required {
			return append(out, httpx.FieldError{Path: at.path(), Rule: "required", Message: "is required"})
		}
		if k := f.Kind(); !isNumber(k) && k != reflect.Struct && k != reflect.Array {
			return out // absent
		}
	}
	if len(fr.checks) > 0 {
		e := f
		for e.Kind() == reflect.Pointer && !e.IsNil() {
			e = e.Elem()
		}
		for _, c := range fr.checks {
			if e.Kind() != reflect.Pointer && !c.ok(e) {
				out = append(out, httpx.FieldError{Path: at.path(), Rule: c.rule, Message: c.msg})
			}
		}
	}
	if fr.child != nil {
		out = fr.child.validate(f, at, out)
	}
	return out
}

// validateMap checks the values of map v. Failures are listed in key
// order, not in the map's random one, and only a map that fails pays for
// sorting its keys: a first walk in the map's order probes for a failure
// (it stops at the first and spells no path), then a map that has one is
// walked again in key order. The probe walks the maps beneath in their
// own order too, so a failing map inside a failing map is walked in key
// order once, not once per walk of each map above it (twice per level).
func (vd *Validator) validateMap(v reflect.Value, at *inputPath, out []httpx.FieldError) []httpx.FieldError {
	if at.probing {
		return vd.walkMap(v, at, out)
	}
	n := len(out)
	at.probing, at.limit = true, n
	out = vd.walkMap(v, at, out)
	at.probing, at.limit = false, MaxFailures
	if len(out) == n {
		return out
	}
	out = out[:n]
	keys := sortedKeys(v)
	for _, k := range keys {
		if !at.more(out) {
			break
		}
		at.push(pathSeg{name: echo.Cut(k.text, maxKeyEcho), index: -1})
		out = vd.elem.validate(v.MapIndex(k.key), at, out)
		at.pop()
	}
	return out
}

// mapKey is a map key and its text.
type mapKey struct {
	key  reflect.Value
	text string
}

// sortedKeys are map v's keys in the order of their text, each spelled
// once: a comparison that spelled both keys made ordering a map of
// integer keys format n·log n of them, twice.
func sortedKeys(v reflect.Value) []mapKey {
	keys := make([]mapKey, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, mapKey{key: k, text: mapKeyText(k)})
	}
	slices.SortFunc(keys, func(a, b mapKey) int { return strings.Compare(a.text, b.text) })
	return keys
}

// walkMap checks the values of map v in the map's order.
func (vd *Validator) walkMap(v reflect.Value, at *inputPath, out []httpx.FieldError) []httpx.FieldError {
	key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
	for it := v.MapRange(); at.more(out) && it.Next(); {
		key.SetIterKey(it)
		val.SetIterValue(it)
		at.push(pathSeg{index: -1}) // a probe's: never spelled
		out = vd.elem.validate(val, at, out)
		at.pop()
	}
	return out
}

// fieldByIndex is the field of struct v at index, or the zero value of
// typ when an embedded pointer on the way is nil: the client cannot tell
// promoted fields from the others, so they are judged alike.
func fieldByIndex(v reflect.Value, index []int, typ reflect.Type) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Zero(typ)
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// inputPath is where validation stands in the input: a root and a stack
// of fields, keys and indexes. It is spelled out only for a value that
// fails, and pooled, so checking a valid input builds no strings and
// allocates nothing.
type inputPath struct {
	root  string
	segs  []pathSeg
	depth int // objects and arrays entered

	// A walk stops once out holds more than limit failures: MaxFailures,
	// or, while probing a map for a failure, one more than it held.
	limit   int
	probing bool

	top     []string // the top-level fields' paths, when known
	spelled string   // String's result, when known
}

type pathSeg struct {
	name  string // a field's name or a map key's text, when index is -1
	index int    // or else an index
}

var inputPaths = sync.Pool{New: func() any { return new(inputPath) }}

func newInputPath(root string) *inputPath {
	p := inputPaths.Get().(*inputPath)
	p.root, p.limit = root, MaxFailures
	return p
}

func (p *inputPath) free() {
	clear(p.segs[:cap(p.segs)]) // keys hold request data
	p.segs, p.depth, p.probing = p.segs[:0], 0, false
	p.top, p.spelled = nil, ""
	inputPaths.Put(p)
}

// more reports whether the walk goes on with out as it stands.
func (p *inputPath) more(out []httpx.FieldError) bool { return len(out) <= p.limit }

// path is the path of a failure found at p: none while probing, whose
// failures are dropped.
func (p *inputPath) path() string {
	if p.probing {
		return ""
	}
	return p.String()
}

func (p *inputPath) push(s pathSeg) { p.segs, p.spelled = append(p.segs, s), "" }
func (p *inputPath) pop()           { p.segs, p.spelled = p.segs[:len(p.segs)-1], "" }

// How much of the client's text a failure's path repeats: a map key's
// first 64 bytes, a path's first 1 KiB (as much as a 404 repeats of a
// request target). The answer holds each path twice, in the message and
// in the list; whole, a 1 MiB key under ten failing fields made a 20 MB
// answer, and 49 levels of 64-byte keys a path of 3 KiB per failure.
const (
	maxKeyEcho  = 64
	maxPathEcho = 1 << 10
)

// String spells p as the client sees it: "body/items/0/sku", cut after
// maxPathEcho bytes. Names and keys are escaped as in a JSON pointer
// (RFC 6901), so a key holding a "/" cannot pose as two levels.
func (p *inputPath) String() string {
	if p.spelled != "" {
		return p.spelled
	}
	b := []byte(p.root)
	for _, s := range p.segs {
		b = append(b, '/')
		if s.index >= 0 {
			b = strconv.AppendInt(b, int64(s.index), 10)
			continue
		}
		b = jsonscan.AppendKey(b, s.name)
	}
	return echo.Cut(b, maxPathEcho)
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// mapKeyText is a map key as its JSON object key: a string as it is, a
// key that marshals itself as text as that text, an integer in decimal.
func mapKeyText(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.Type().Implements(textMarshaler) {
		if b, err := k.Interface().(encoding.TextMarshaler).MarshalText(); err == nil {
			return string(b)
		}
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10)
	}
	return fmt.Sprint(k.Interface())
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}
