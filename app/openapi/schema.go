package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/validate"
)

// obj is a JSON object of the document. encoding/json writes map keys
// sorted, which makes the output deterministic.
type obj = map[string]any

// direction says whether a schema describes what clients send (in, and
// text for a parameter) or what the server answers (out). They differ in
// what is required: a request property is required when its field is
// tagged validate:"required", a reply property when the encoder always
// writes it (no omitempty or omitzero); and in the methods that read or
// write a type: the encoder goes through MarshalJSON and MarshalText, the
// JSON decoder through UnmarshalJSON and UnmarshalText, the text decoders
// of parameters through UnmarshalText only.
type direction int

const (
	out direction = iota
	in
	text // a path, query, header or cookie value; never a component
)

// schemaKey names one component schema before names are given.
type schemaKey struct {
	t   reflect.Type
	dir direction
}

// ref is a reference to a component schema, resolved to its name when the
// document is written (names depend on every type the document holds).
type ref struct{ key schemaKey }

// schemas turns Go types into JSON Schema (2020-12, as OpenAPI 3.1 has
// it). Named struct types become components, referred to by $ref;
// everything else is written inline.
type schemas struct {
	defs  map[schemaKey]obj
	order []schemaKey // in the order first met, for stable names
}

func newSchemas() *schemas { return &schemas{defs: map[schemaKey]obj{}} }

var (
	typeTime          = reflect.TypeFor[time.Time]()
	typeRaw           = reflect.TypeFor[json.RawMessage]()
	typeJSONMarshaler = reflect.TypeFor[json.Marshaler]()
	// typeJSONUnmarshaler is what the JSON decoder fills from its JSON.
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	typeTextMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	// typeTextUnmarshaler is what the text decoders fill from its text.
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// of is the schema of t.
func (s *schemas) of(t reflect.Type, dir direction) obj {
	if t == nil {
		return obj{}
	}
	own := t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface // its methods, not its pointee's
	switch {
	case t == typeTime:
		return obj{"type": "string", "format": "date-time"}
	case t == typeRaw:
		return obj{}
	case own && dir == out && implements(t, typeJSONMarshaler):
		return obj{} // it writes itself: its shape is its own
	case own && dir == out && implements(t, typeTextMarshaler):
		return obj{"type": "string"}
	case own && dir == in && reflect.PointerTo(t).Implements(typeJSONUnmarshaler):
		return obj{} // it reads itself, from any JSON it takes
	case own && dir != out && reflect.PointerTo(t).Implements(typeTextUnmarshaler):
		return obj{"type": "string"} // it reads itself from a string
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return signed(t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return unsigned(t.Bits())
	case reflect.Float32:
		return obj{"type": "number", "format": "float"}
	case reflect.Float64:
		return obj{"type": "number", "format": "double"}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Interface:
		return obj{}
	case reflect.Pointer:
		return nullable(s.of(t.Elem(), dir))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(typeTextMarshaler) {
			return obj{"type": "string", "contentEncoding": "base64"}
		}
		return obj{"type": "array", "items": s.of(t.Elem(), dir)}
	case reflect.Array:
		return obj{"type": "array", "items": s.of(t.Elem(), dir), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": s.of(t.Elem(), dir)}
	case reflect.Struct:
		if t.Name() == "" {
			return s.object(t, dir)
		}
		k := schemaKey{t, dir}
		if _, ok := s.defs[k]; !ok {
			s.defs[k] = nil // placed first: a recursive type refers to itself
			s.order = append(s.order, k)
			s.defs[k] = s.object(t, dir)
		}
		return obj{"$ref": ref{k}}
	}
	return obj{} // channels and functions do not encode; say nothing
}

// implements reports whether t or *t implements iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// signed is the schema of a signed integer of bits bits: OpenAPI's
// format int32 or int64, with the bounds of a narrower one, which the
// decoders refuse to overflow.
func signed(bits int) obj {
	sc := obj{"type": "integer", "format": "int64"}
	if bits <= 32 {
		sc["format"] = "int32"
	}
	if bits < 32 {
		sc["minimum"], sc["maximum"] = -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
	}
	return sc
}

// unsigned is the schema of an unsigned integer of bits bits: the
// narrowest format that holds it, with its bounds; a 64-bit one has no
// format, as int64 would say it stops at 2^63-1.
func unsigned(bits int) obj {
	sc := obj{"type": "integer", "minimum": 0}
	switch {
	case bits < 32:
		sc["format"] = "int32"
	case bits == 32:
		sc["format"] = "int64"
	}
	if bits < 64 {
		sc["maximum"] = uint64(1)<<bits - 1
	}
	return sc
}

// nullable makes a schema accept null too, as a nil pointer encodes.
func nullable(sc obj) obj {
	if t, ok := sc["type"].(string); ok {
		sc["type"] = []any{t, "null"}
		return sc
	}
	if _, ok := sc["$ref"]; ok {
		return obj{"oneOf": []any{sc, obj{"type": "null"}}}
	}
	return sc // already accepts anything
}

// notNull is sc without the null nullable allowed.
func notNull(sc obj) obj {
	if types, ok := sc["type"].([]any); ok && len(types) == 2 && types[1] == "null" {
		sc["type"] = types[0]
	}
	if alts, ok := sc["oneOf"].([]any); ok && len(alts) == 2 && isNull(alts[1]) {
		return alts[0].(obj)
	}
	return sc
}

// nullInEnum adds null to the enum of a schema that allows null: JSON
// Schema checks enum against every value, null too, so a nullable enum
// without it would refuse the null its type allows (and the server takes).
func nullInEnum(sc obj) {
	types, _ := sc["type"].([]any)
	if enum, ok := sc["enum"].([]any); ok && slices.Contains(types, "null") {
		sc["enum"] = append(enum, nil)
	}
}

// object is the schema of struct t: its JSON members, their rules, and
// which are required in dir.
func (s *schemas) object(t reflect.Type, dir direction) obj {
	props := obj{}
	var required []any
	for _, f := range inputfields.List(t, "json") {
		opts := jsonOptions(f.Tag.Get("json"))
		var sc obj
		if opts["string"] && isScalar(f.Type) {
			sc = obj{"type": "string"}
			if f.Type.Kind() == reflect.Pointer {
				sc = nullable(sc) // a nil one is null, not quoted
			}
		} else {
			sc = s.of(f.Type, dir)
		}
		req := applyRules(sc, f.StructField)
		switch {
		case dir == out:
			req = !opts["omitempty"] && !opts["omitzero"]
		case req:
			sc = notNull(sc) // validate's required refuses a nil pointer: null is a 400
			refuseZero(sc, f.Type)
		}
		nullInEnum(sc)
		if req {
			required = append(required, f.Key)
		}
		props[f.Key] = sc
	}
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func jsonOptions(tag string) map[string]bool {
	m := map[string]bool{}
	_, rest, _ := strings.Cut(tag, ",")
	for o := range strings.SplitSeq(rest, ",") {
		m[o] = true
	}
	return m
}

func isScalar(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k := t.Kind()
	return k == reflect.Bool || k == reflect.String || isNumber(k)
}

// applyRules writes f's validate and pattern tags into sc as JSON Schema
// keywords, and reports whether f is required. Bounds land on what they
// bound: characters of a string, items of a slice or array, properties
// of a map, the value of a number. Rules the validator would refuse at
// Ready never reach here, since Ready failed. The default tag is not
// written here: the text decoders apply it (params writes it), the JSON
// decoder does not.
func applyRules(sc obj, f reflect.StructField) bool {
	target := sc
	if alts, ok := sc["oneOf"].([]any); ok && len(alts) > 0 {
		target = alts[0].(obj) // a nullable reference: rules on a struct are its fields'
	}
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := f.Tag.Lookup("pattern"); ok {
		target["pattern"] = p
	}
	required := false
	for _, r := range validate.Rules(f.Tag.Get("validate")) {
		rule, arg := r.Name, r.Arg
		switch rule {
		case "required":
			required = true
		case "min", "max", "len":
			bound(target, rule, arg, t.Kind())
		case "enum", "oneof":
			values, _ := r.Values() // they read, or Ready would have failed
			enum := make([]any, len(values))
			for i, v := range values {
				enum[i] = v
				if isNumber(t.Kind()) {
					enum[i] = number(v)
				}
			}
			target["enum"] = enum
		case "format":
			target["format"] = arg
			if arg == "weblink" {
				// Said in JSON Schema's words: a URI whose scheme is http
				// or https (unless a pattern of the field's says more).
				target["format"] = "uri"
				if _, ok := target["pattern"]; !ok {
					target["pattern"] = "^[Hh][Tt][Tt][Pp][Ss]?://"
				}
			}
		}
	}
	return required
}

// refuseZero writes into sc, the request schema of a field of type t
// tagged validate:"required", that the zero value is refused, as the
// validator refuses it: a string must not be empty, a bool must be true,
// a number must not be 0. Rules that refuse the zero already (a larger
// minLength, bounds or an enum without it) are left to say so. Other
// kinds say it already (a pointer's zero is null, a slice's or map's is
// null too), or cannot be said in JSON Schema (a struct's); so do types
// that decode themselves, whose zero value has no known text.
func refuseZero(sc obj, t reflect.Type) {
	if decodesItself(t) {
		return
	}
	var zero any
	switch k := t.Kind(); {
	case k == reflect.String && sc["type"] == "string":
		if n, ok := asFloat(sc["minLength"]); ok && n >= 1 {
			return
		}
		zero = ""
	case k == reflect.Bool && sc["type"] == "boolean":
		zero = false
	case isNumber(k) && (sc["type"] == "integer" || sc["type"] == "number"):
		if lo, ok := asFloat(sc["minimum"]); ok && lo > 0 {
			return
		}
		if hi, ok := asFloat(sc["maximum"]); ok && hi < 0 {
			return
		}
		zero = 0
	default:
		return
	}
	if enum, ok := sc["enum"].([]any); ok {
		if !slices.ContainsFunc(enum, func(v any) bool { return sameValue(v, zero) }) {
			return // the enum refuses it already
		}
		// An enum naming the zero value with required is a contradiction
		// the validator resolves by refusing it; so does the schema.
		sc["enum"] = slices.DeleteFunc(slices.Clone(enum), func(v any) bool { return sameValue(v, zero) })
		return
	}
	switch zero.(type) {
	case string:
		sc["minLength"] = 1
	case bool:
		sc["enum"] = []any{true}
	default:
		// not of a one-value enum, not const: the 3.0.3 rendition has no
		// const, and both renditions read this alike.
		sc["not"] = obj{"enum": []any{0}}
	}
}

// decodesItself reports whether the decoders fill t through its own
// UnmarshalText or UnmarshalJSON, not by its kind.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(typeTextUnmarshaler) || p.Implements(typeJSONUnmarshaler)
}

func isNumber(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }

// asFloat is a number of the document as a float64.
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// sameValue reports whether two values of the document are the same
// JSON value, numbers compared by value.
func sameValue(a, b any) bool {
	if x, ok := asFloat(a); ok {
		y, ok := asFloat(b)
		return ok && x == y
	}
	return a == b
}

// bound writes min, max or len for a value of kind k.
func bound(sc obj, rule, arg string, k reflect.Kind) {
	var lo, hi string
	switch k {
	case reflect.String:
		lo, hi = "minLength", "maxLength"
	case reflect.Slice, reflect.Array:
		lo, hi = "minItems", "maxItems"
	case reflect.Map:
		lo, hi = "minProperties", "maxProperties"
	default:
		lo, hi = "minimum", "maximum"
	}
	n := number(arg)
	if rule == "min" || rule == "len" {
		tighter(sc, lo, n, 1)
	}
	if rule == "max" || rule == "len" {
		tighter(sc, hi, n, -1)
	}
}

// tighter sets sc[key] to n unless it holds a bound already tighter: a
// larger one for a lower bound (sign 1), a smaller one for an upper
// bound (sign -1). A type's bounds (an int8's) stay when a rule is
// looser.
func tighter(sc obj, key string, n any, sign float64) {
	if prev, ok := asFloat(sc[key]); ok {
		if f, ok := asFloat(n); ok && (prev-f)*sign > 0 {
			return
		}
	}
	sc[key] = n
}

// number is a rule's argument as a JSON number.
func number(arg string) any {
	if n, err := strconv.ParseInt(arg, 10, 64); err == nil {
		return n
	}
	if n, err := strconv.ParseUint(arg, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(arg, 64); err == nil {
		return f
	}
	return arg
}

// typedDefault is a default tag's text as a value of t's JSON type, as
// the text decoder applies it: a slice takes it as its one item, commas
// and all, as it would take one value of a repeated key.
func typedDefault(d string, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(typeTextUnmarshaler) {
		return d
	}
	switch t.Kind() {
	case reflect.Bool:
		if b, err := strconv.ParseBool(d); err == nil {
			return b
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return number(d)
	case reflect.Slice:
		return []any{typedDefault(d, t.Elem())}
	}
	return d
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// names gives every component schema its name: the Go type's name with
// its first letter upper-cased ("echoBody" is EchoBody; see baseName for
// generic types); types of one name from several packages are told apart
// by their package's name, others of one name by a number; a type
// described differently for requests and replies gets "Input" after its
// request form. reserved gives some types a fixed name, which no other
// type gets: Burrow's error body is "Error", whatever the user's types
// are called.
func (s *schemas) names(reserved map[reflect.Type]string) map[schemaKey]string {
	names := map[schemaKey]string{}
	taken := map[string]bool{}
	byType := map[reflect.Type][]schemaKey{}
	var types []reflect.Type
	for _, k := range s.order {
		if name, ok := reserved[k.t]; ok {
			names[k], taken[name] = name, true
			continue
		}
		if _, ok := byType[k.t]; !ok {
			types = append(types, k.t)
		}
		byType[k.t] = append(byType[k.t], k)
	}
	merged := s.merged(byType)
	pkgs := map[string]map[string]bool{} // by base name, the packages of its types
	for _, t := range types {
		n := baseName(t)
		if pkgs[n] == nil {
			pkgs[n] = map[string]bool{}
		}
		pkgs[n][t.PkgPath()] = true
	}
	for _, t := range types {
		n := baseName(t)
		if len(pkgs[n]) > 1 {
			pkg := t.PkgPath()
			pkg = pkg[strings.LastIndex(pkg, "/")+1:]
			n = unsafeName.ReplaceAllString(pkg, "_") + "." + n
		}
		keys := byType[t]
		if !merged[t] {
			for _, k := range keys {
				name := n
				if k.dir == in {
					name += "Input"
				}
				names[k] = unique(name, taken)
			}
			continue
		}
		name := unique(n, taken)
		for _, k := range keys {
			names[k] = name
		}
	}
	return names
}

// typeWords finds the words of a type's name: identifiers, each with the
// package path before it ("github.com/x/pkg.item", "main.item").
var typeWords = regexp.MustCompile(`[\w./~-]+`)

// baseName is t's name as a component's: its first letter upper-cased;
// for an instance of a generic type, followed by the names of its type
// arguments without their packages, each capitalised (PageOf[main.item]
// is PageOfItem, Pair[string,int] PairStringInt).
func baseName(t reflect.Type) string {
	name, args, generic := strings.Cut(t.Name(), "[")
	var b strings.Builder
	b.WriteString(capitalise(name))
	if generic {
		for _, w := range typeWords.FindAllString(args, -1) {
			w = w[strings.LastIndexByte(w, '/')+1:]
			b.WriteString(capitalise(w[strings.LastIndexByte(w, '.')+1:]))
		}
	}
	n := strings.Trim(unsafeName.ReplaceAllString(b.String(), "_"), "_")
	if n == "" {
		return "Schema"
	}
	return capitalise(n)
}

// capitalise is s with its first letter upper-cased.
func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// unique returns name, or name with a number after it, not yet taken.
func unique(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}

// merged says, for each type, whether its request and reply forms are
// the same schema, so one component serves both. Two forms are the same
// when they are equal with every reference read as its type and whether
// that type is merged: found by dropping pairs that differ until none
// does (types may be recursive).
func (s *schemas) merged(byType map[reflect.Type][]schemaKey) map[reflect.Type]bool {
	merged := map[reflect.Type]bool{}
	for t := range byType {
		merged[t] = true
	}
	for changed := true; changed; {
		changed = false
		for t, keys := range byType {
			if merged[t] && len(keys) == 2 &&
				fmt.Sprint(strip(s.defs[keys[0]], merged)) != fmt.Sprint(strip(s.defs[keys[1]], merged)) {
				merged[t], changed = false, true
			}
		}
	}
	return merged
}

// strip replaces references by what decides their name, for merged.
func strip(v any, merged map[reflect.Type]bool) any {
	return replaceRefs(v, func(r ref) any {
		if merged[r.key.t] {
			return r.key.t.String()
		}
		return r.key
	})
}

// replaceRefs copies a schema with each reference replaced by what with
// makes of it. Maps and lists are copied, so a schema shared by two places
// is written twice, never aliased.
func replaceRefs(v any, with func(ref) any) any {
	switch x := v.(type) {
	case obj:
		m := make(obj, len(x))
		for k, e := range x {
			m[k] = replaceRefs(e, with)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = replaceRefs(e, with)
		}
		return l
	case []string:
		return slices.Clone(x)
	case ref:
		return with(x)
	}
	return v
}
