package jsonscan

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app/internal/inputfields"
)

// Decoder decodes a JSON object into one struct type in a single pass
// that also applies Check's rules: the common body shapes (strings,
// numbers, booleans, slices of them, nested structs of them) read once
// instead of three times (Check, then encoding/json's validity scan,
// then its decoding), without their maps and buffers.
//
// It is a fast path, never the judge: it succeeds only on bodies that
// Check accepts and that encoding/json decodes without error, into the
// same value. On anything else — an escape in a string, an unknown key
// holding an object, a duplicate, a mistyped value, bad syntax — it
// gives up, and the caller zeroes the value and runs Check and
// encoding/json, which give the answer they always gave.
type Decoder struct {
	fields []decField
	byKey  map[string]int    // exact key → index in fields
	folded map[string]string // folded key → field key, for the case rule
}

type decKind uint8

const (
	decString decKind = iota
	decBool
	decInt
	decUint
	decFloat
	decStruct
	decSlice
)

type decField struct {
	index int      // in the struct
	kind  decKind  // of the field
	elem  decKind  // a slice's elements
	sub   *Decoder // a nested struct's
}

// maxFields is the most fields a struct may have for the fast path: which
// ones a body set is one bit each.
const maxFields = 64

// maxUnknown is the most keys naming no field one object may hold in the
// fast path; they are kept to refuse a duplicate without a map.
const maxUnknown = 8

// CompileDecoder returns the fast decoder of struct type t, or nil when
// something in t is decoded in a way only encoding/json knows (pointers,
// maps, interfaces, embedded structs, tag options other than omitempty
// and omitzero, types that unmarshal themselves…) or when it nests
// deeper than maxDepth.
func CompileDecoder(t reflect.Type, maxDepth int) *Decoder {
	if t.Kind() != reflect.Struct || maxDepth < 1 {
		return nil
	}
	return compileDecoder(t, maxDepth-1)
}

func compileDecoder(t reflect.Type, depth int) *Decoder {
	if ownDecoding(t) || t.NumField() > maxFields {
		return nil
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous || !plainOptions(f.Tag.Get("json")) {
			return nil
		}
	}
	d := &Decoder{byKey: map[string]int{}, folded: map[string]string{}}
	for _, f := range inputfields.List(t, "json") {
		if len(f.Path) != 1 {
			return nil // promoted from a struct it embeds by option
		}
		df := decField{index: f.Path[0]}
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			if depth < 1 {
				return nil
			}
			if df.sub = compileDecoder(ft, depth-1); df.sub == nil {
				return nil
			}
			df.kind = decStruct
		case ft.Kind() == reflect.Slice:
			var ok bool
			if df.elem, ok = scalarKind(ft.Elem()); !ok || depth < 1 || ft.Elem().Kind() == reflect.Uint8 {
				return nil // []byte is base64 to encoding/json
			}
			df.kind = decSlice
		default:
			var ok bool
			if df.kind, ok = scalarKind(ft); !ok {
				return nil
			}
		}
		d.byKey[f.Key] = len(d.fields)
		d.fields = append(d.fields, df)
		if folded := string(appendFolded(nil, f.Key)); d.folded[folded] == "" {
			d.folded[folded] = f.Key
		}
	}
	return d
}

// plainOptions reports whether a json tag has no option but omitempty
// and omitzero, which only encoding matters to. Any other changes how
// encoding/json decodes the field (string), or does on one toolchain only
// (embed, case and format, options of Go 1.27's encoding/json/v2): such a
// field is left to encoding/json.
func plainOptions(tag string) bool {
	_, opts, _ := strings.Cut(tag, ",")
	for o := range strings.SplitSeq(opts, ",") {
		if o != "" && o != "omitempty" && o != "omitzero" {
			return false
		}
	}
	return true
}

var typeNumber = reflect.TypeFor[json.Number]()

// ownDecoding reports whether encoding/json decodes t in a way of its own.
func ownDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t == typeNumber || pt.Implements(typeJSONUnmarshaler) || pt.Implements(typeTextUnmarshaler)
}

func scalarKind(t reflect.Type) (decKind, bool) {
	if ownDecoding(t) {
		return 0, false
	}
	switch t.Kind() {
	case reflect.String:
		return decString, true
	case reflect.Bool:
		return decBool, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decInt, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return decUint, true
	case reflect.Float32, reflect.Float64:
		return decFloat, true
	}
	return 0, false
}

// Decode decodes data into v, an addressable value of the decoder's
// struct type holding its zero value, and reports whether it could. When
// it reports false, v may be partly filled.
func (d *Decoder) Decode(data []byte, v reflect.Value) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i, ok := d.object(data, i, v)
	return ok && skipSpace(data, i) == len(data)
}

// object decodes the object at data[i] ('{') into v and returns the
// index after it.
func (d *Decoder) object(data []byte, i int, v reflect.Value) (int, bool) {
	var seen uint64
	var unknown [maxUnknown][]byte
	nUnknown := 0
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		end, escaped, ok := scanString(data, i)
		if !ok || escaped {
			return 0, false // an escaped key: Check compares keys decoded
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		if i = skipSpace(data, i+1); i >= len(data) {
			return 0, false
		}
		if n, ok := d.byKey[string(key)]; ok {
			if seen&(1<<n) != 0 {
				return 0, false // a duplicate: Check words the 400
			}
			seen |= 1 << n
			if i, ok = d.fields[n].decode(data, i, v); !ok {
				return 0, false
			}
		} else {
			if !d.unknownKey(key, unknown[:nUnknown]) || nUnknown == maxUnknown {
				return 0, false
			}
			unknown[nUnknown] = key
			nUnknown++
			if i, ok = skipScalar(data, i); !ok {
				return 0, false
			}
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return 0, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// unknownKey reports whether key, which names no field, may be skipped:
// plain ASCII (so its bytes are the key encoding/json sees), not naming a
// field by folding case, and not one of the object's earlier unknown keys.
func (d *Decoder) unknownKey(key []byte, earlier [][]byte) bool {
	var buf [64]byte
	if len(key) > len(buf) {
		return false
	}
	folded := buf[:len(key)]
	for j, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A' // the least rune of an ASCII letter's folding orbit
		}
		folded[j] = c
	}
	if _, ok := d.folded[string(folded)]; ok {
		return false
	}
	for _, k := range earlier {
		if string(k) == string(key) {
			return false
		}
	}
	return true
}

// decode decodes the value at data[i] into field f of struct v.
func (f *decField) decode(data []byte, i int, v reflect.Value) (int, bool) {
	fv := v.Field(f.index)
	if hasPrefix(data[i:], "null") {
		if f.kind == decSlice {
			fv.SetZero() // encoding/json sets a slice to nil; the rest stay
		}
		return i + 4, true
	}
	switch f.kind {
	case decStruct:
		if data[i] != '{' {
			return 0, false
		}
		return f.sub.object(data, i, fv)
	case decSlice:
		return f.slice(data, i, fv)
	}
	return scalar(f.kind, data, i, fv)
}

// slice decodes the array at data[i] into slice fv: its elements are
// found first, sixteen at a time, so that a short slice is allocated once,
// at its length, instead of growing one element at a time.
func (f *decField) slice(data []byte, i int, fv reflect.Value) (int, bool) {
	if data[i] != '[' {
		return 0, false
	}
	const batch = 16
	var spans [batch][2]int
	n := 0
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0)) // [] is empty, not nil
		return i + 1, true
	}
	for {
		if i >= len(data) {
			return 0, false
		}
		end, ok := skipScalar(data, i)
		if !ok {
			return 0, false
		}
		spans[n%batch] = [2]int{i, end}
		n++
		if n%batch == 0 && !f.fill(data, spans[:], n, fv) {
			return 0, false
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return 0, false
		}
		if data[i] == ']' {
			return i + 1, f.fill(data, spans[:n%batch], n, fv)
		}
		if data[i] != ',' {
			return 0, false
		}
		i = skipSpace(data, i+1)
	}
}

// fill sets the last len(spans) of n elements of slice fv.
func (f *decField) fill(data []byte, spans [][2]int, n int, fv reflect.Value) bool {
	if len(spans) == 0 {
		return true
	}
	if fv.Cap() < n {
		fv.Grow(n - fv.Len())
	}
	at := fv.Len()
	fv.SetLen(n)
	for j, s := range spans {
		if end, ok := scalar(f.elem, data[:s[1]], s[0], fv.Index(at+j)); !ok || end != s[1] {
			return false
		}
	}
	return true
}

// scalar decodes the string, number or boolean at data[i] into fv, of
// kind k, and returns the index after it.
func scalar(k decKind, data []byte, i int, fv reflect.Value) (int, bool) {
	switch k {
	case decString:
		if data[i] != '"' {
			return 0, false
		}
		end, escaped, ok := scanString(data, i)
		switch {
		case !ok:
		case escaped:
			var buf [128]byte
			fv.SetString(string(unquote(buf[:0], data[i+1:end-1])))
		default:
			fv.SetString(string(data[i+1 : end-1]))
		}
		return end, ok
	case decBool:
		switch {
		case hasPrefix(data[i:], "true"):
			fv.SetBool(true)
			return i + 4, true
		case hasPrefix(data[i:], "false"):
			fv.SetBool(false)
			return i + 5, true
		}
		return 0, false
	}
	end, ok := scanNumber(data, i)
	if !ok {
		return 0, false
	}
	num := data[i:end]
	switch k {
	case decInt:
		n, ok := parseInt(num)
		if !ok || fv.OverflowInt(n) {
			return 0, false
		}
		fv.SetInt(n)
	case decUint:
		n, ok := parseUint(num)
		if !ok || fv.OverflowUint(n) {
			return 0, false
		}
		fv.SetUint(n)
	case decFloat:
		x, err := strconv.ParseFloat(string(num), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(x) {
			return 0, false
		}
		fv.SetFloat(x)
	}
	return end, true
}

// parseInt parses a JSON number that is an integer, as strconv.ParseInt
// does in base 10 (what encoding/json calls), without its error value.
func parseInt(num []byte) (int64, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	u, ok := parseUint(num)
	switch {
	case !ok:
		return 0, false
	case u <= math.MaxInt64 && neg:
		return -int64(u), true
	case u <= math.MaxInt64:
		return int64(u), true
	case neg && u == 1<<63:
		return math.MinInt64, true // the one value without a positive twin
	}
	return 0, false
}

// parseUint parses a JSON number made of digits only.
func parseUint(num []byte) (uint64, bool) {
	if len(num) == 0 || len(num) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent: not an integer to encoding/json
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// skipScalar returns the index after the string, number or literal at
// data[i]; an object or an array is not skipped here (its keys would
// need Check's rules).
func skipScalar(data []byte, i int) (int, bool) {
	switch c := data[i]; {
	case c == '"':
		end, _, ok := scanString(data, i)
		return end, ok
	case c == '-' || '0' <= c && c <= '9':
		return scanNumber(data, i)
	case hasPrefix(data[i:], "true"), hasPrefix(data[i:], "null"):
		return i + 4, true
	case hasPrefix(data[i:], "false"):
		return i + 5, true
	}
	return 0, false
}

// scanString returns the index after the string at data[i] ('"') and
// whether it holds escapes. It accepts only valid UTF-8 (encoding/json
// replaces bad bytes with U+FFFD) and valid escapes.
func scanString(data []byte, i int) (end int, escaped, ok bool) {
	ascii := true
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(data[i+1:j]) {
				return 0, false, false
			}
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			j++
			if j >= len(data) {
				return 0, false, false
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(data, j+1); !ok {
					return 0, false, false
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, false, false
}

// hex4 reads the four hex digits of a \u escape at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unquote appends the value of s, the inside of a string scanString
// accepted, to b, resolving escapes as encoding/json does: a surrogate
// pair is one rune, a lone surrogate is U+FFFD.
func unquote(b, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, _ := hex4(s, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, _ := hex4(s, i+2)
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
						b = utf8.AppendRune(b, r)
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\' or '/'
			b = append(b, s[i+1])
		}
		i += 2
	}
	return b
}

// IsNumber reports whether s is a number as JSON writes it: an optional
// minus, digits without a leading zero, a fraction, an exponent. That
// excludes what strconv reads besides: NaN, infinities, hex, underscores,
// a plus sign.
func IsNumber(s string) bool {
	end, ok := scanNumber(s, 0)
	return ok && end == len(s)
}

// scanNumber returns the index after the JSON number at data[i].
func scanNumber[T string | []byte](data T, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(data) && '0' <= data[j] && data[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return 0, false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}
