package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// zeroes has required fields of each kind whose zero value the validator
// refuses, and fields whose rules already refuse it.
type zeroes struct {
	Name    string   `json:"name" validate:"required"`
	Code    string   `json:"code" validate:"required,min=3"`
	Kind    string   `json:"kind" validate:"required,enum=a|b"`
	On      bool     `json:"on" validate:"required"`
	Count   int      `json:"count" validate:"required"`
	Ratio   float64  `json:"ratio" validate:"required,max=2"`
	Page    int      `json:"page" validate:"required,min=1"`
	Note    *string  `json:"note" validate:"required"`
	Tags    []string `json:"tags" validate:"required"`
	Unbound int      `json:"unbound"`
}

type zeroParams struct {
	app.In
	Q     string  `query:"q" validate:"required"`
	N     int     `query:"n" validate:"required"`
	Trace string  `header:"X-Trace" validate:"required"`
	Sid   string  `cookie:"sid" validate:"required"`
	Opt   *string `query:"opt" validate:"required"`
	Body  zeroes  `body:""`
}

// TestRequiredRefusesTheZeroValue: validate's required refuses the zero
// value, so a required string, bool or number of a request says so in
// its schema (a string's minLength 1, a bool's enum [true], a number's
// not 0), unless its other rules already refuse it; a pointer's zero is
// nil, which the schema refuses already, and a reply's schema says
// nothing of it.
func TestRequiredRefusesTheZeroValue(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/z", func(_ context.Context, in zeroParams) (zeroes, error) { return in.Body, nil })
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		props := at(t, d, "components", "schemas", "ZeroesInput", "properties").(doc)
		for field, want := range map[string]doc{
			"name":    {"type": "string", "minLength": 1.0},
			"code":    {"type": "string", "minLength": 3.0},
			"kind":    {"type": "string", "enum": []any{"a", "b"}},
			"on":      {"type": "boolean", "enum": []any{true}},
			"count":   {"type": "integer", "format": "int64", "not": doc{"enum": []any{0.0}}},
			"ratio":   {"type": "number", "format": "double", "maximum": 2.0, "not": doc{"enum": []any{0.0}}},
			"page":    {"type": "integer", "format": "int64", "minimum": 1.0},
			"note":    {"type": "string"},
			"tags":    {"type": "array", "items": doc{"type": "string"}},
			"unbound": {"type": "integer", "format": "int64"},
		} {
			assert.Equal(t, want, props[field], field)
		}
		reply := at(t, d, "components", "schemas", "Zeroes", "properties").(doc)
		assert.Equal(t, doc{"type": "string"}, reply["name"], "a reply may hold the zero value")
		params := at(t, d, "paths", "/z", "post", "parameters").([]any)
		require.Len(t, params, 5)
		for i, want := range []doc{
			{"type": "string", "minLength": 1.0},
			{"type": "integer", "format": "int64", "not": doc{"enum": []any{0.0}}},
			{"type": "string", "minLength": 1.0},
			{"type": "string", "minLength": 1.0},
			{"type": "string"},
		} {
			assert.Equal(t, want, at(t, params[i], "schema"), at(t, params[i], "name"))
		}
	}

	// What the schema refuses, the server refuses.
	valid := map[string]any{"name": "x", "code": "abc", "kind": "a", "on": true, "count": 1, "ratio": 1, "page": 1, "note": "", "tags": []string{}}
	post := func(query string, body map[string]any) int {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		return apptest.Do(t, s, "POST", "/z?"+query, bytes.NewReader(b),
			"Content-Type", "application/json", "X-Trace", "t", "Cookie", "sid=s").StatusCode
	}
	require.Equal(t, 200, post("q=x&n=1&opt=", valid), "a pointer to the empty string is not the pointer's zero")
	for field, zero := range map[string]any{"name": "", "on": false, "count": 0, "ratio": 0} {
		bad := maps.Clone(valid)
		bad[field] = zero
		assert.Equal(t, 400, post("q=x&n=1&opt=", bad), field)
	}
	assert.Equal(t, 400, post("q=&n=1&opt=", valid), "an empty required query value")
	assert.Equal(t, 400, post("q=x&n=0&opt=", valid), "a zero required query number")
}

// level is an int written as a word: the decoders read it through
// UnmarshalText; the encoder writes the int.
type level int

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return errors.New("not a level")
	}
	return nil
}

// loose is a struct read through its own UnmarshalJSON, from any JSON.
type loose struct{ V string }

func (l *loose) UnmarshalJSON(b []byte) error { l.V = string(b); return nil }

type unmarshalers struct {
	Level level   `json:"level"`
	Loose loose   `json:"loose"`
	Tiers []level `json:"tiers,omitempty"`
}

type unmarshalerParams struct {
	app.In
	Level level        `query:"level"`
	Max   *level       `header:"X-Max"`
	Body  unmarshalers `body:""`
}

// TestUnmarshalersAreDocumentedByWhatTheyRead: a type the decoders fill
// through UnmarshalText is a string in requests and parameters, one
// filled through UnmarshalJSON is any JSON; a reply is what the encoder
// writes, the Go shape.
func TestUnmarshalersAreDocumentedByWhatTheyRead(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/u", func(_ context.Context, in unmarshalerParams) (unmarshalers, error) { return in.Body, nil })
	v31, _ := build(t, s)
	input := at(t, v31, "components", "schemas", "UnmarshalersInput", "properties").(doc)
	assert.Equal(t, doc{"type": "string"}, input["level"])
	assert.Equal(t, doc{}, input["loose"])
	assert.Equal(t, doc{"type": "array", "items": doc{"type": "string"}}, input["tiers"])
	params := at(t, v31, "paths", "/u", "post", "parameters").([]any)
	require.Len(t, params, 2)
	assert.Equal(t, doc{"type": "string"}, at(t, params[0], "schema"), "query")
	assert.Equal(t, doc{"type": "string"}, at(t, params[1], "schema"), "header")
	reply := at(t, v31, "components", "schemas", "Unmarshalers", "properties").(doc)
	assert.Equal(t, doc{"type": "integer", "format": "int64"}, reply["level"], "written as its Go shape")
	assert.Equal(t, "#/components/schemas/Loose", at(t, reply, "loose", "$ref"))

	res := apptest.Do(t, s, "POST", "/u?level=high", strings.NewReader(`{"level":"low","loose":[1,{}],"tiers":["high"]}`),
		"Content-Type", "application/json", "X-Max", "high")
	require.Equal(t, 200, res.StatusCode, "the server reads what the document says: %s", res.Body)
	assert.JSONEq(t, `{"level":1,"loose":{"V":"[1,{}]"},"tiers":[2]}`, res.Body)
}

type quoted struct {
	Count *int64 `json:"count,string"`
	Total int64  `json:"total,string"`
	Must  *int64 `json:"must,string" validate:"required"`
}

// TestStringOptionOfAPointer: a pointer tagged ,string is a quoted number
// or, nil, null: nullable in replies, and in requests unless required.
func TestStringOptionOfAPointer(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/q", func(b app.Body[quoted]) (quoted, error) { return b.Value, nil })
	v31, v30 := build(t, s)
	reply := at(t, v31, "components", "schemas", "Quoted", "properties").(doc)
	assert.Equal(t, doc{"type": []any{"string", "null"}}, reply["count"])
	assert.Equal(t, doc{"type": "string"}, reply["total"])
	assert.Equal(t, doc{"type": "string", "nullable": true}, at(t, v30, "components", "schemas", "Quoted", "properties", "count"))
	input := at(t, v31, "components", "schemas", "QuotedInput", "properties").(doc)
	assert.Equal(t, doc{"type": []any{"string", "null"}}, input["count"])
	assert.Equal(t, doc{"type": "string"}, input["must"], "required: null is refused")

	res := apptest.Do(t, s, "POST", "/q", strings.NewReader(`{"count":null,"total":"2","must":"3"}`), "Content-Type", "application/json")
	require.Equal(t, 200, res.StatusCode, "null is taken: %s", res.Body)
	assert.JSONEq(t, `{"count":null,"total":"2","must":"3"}`, res.Body, "and a nil one is written null")
	res = apptest.Do(t, s, "POST", "/q", strings.NewReader(`{"total":"2","must":null}`), "Content-Type", "application/json")
	assert.Equal(t, 400, res.StatusCode, res.Body)
}

type widths struct {
	I8    int8    `json:"i8"`
	I16   int16   `json:"i16"`
	I32   int32   `json:"i32"`
	I64   int64   `json:"i64"`
	U8    uint8   `json:"u8"`
	U16   uint16  `json:"u16"`
	U32   uint32  `json:"u32"`
	U64   uint64  `json:"u64"`
	U     uint    `json:"u"`
	Small int8    `json:"small" validate:"min=-5,max=200"`
	Few   []uint8 `json:"few,omitempty"`
	Ptr   *uint16 `json:"ptr"`
}

// TestIntegerBoundsFollowTheType: an integer narrower than 64 bits is
// bounded by its type, which the decoders refuse to overflow; an
// unsigned 64-bit integer has no OpenAPI format (int64 would say it
// stops at 2^63-1). A rule tighter than the type's bound replaces it.
func TestIntegerBoundsFollowTheType(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/w", func(b app.Body[widths]) error { return nil })
	s.Get("/w", func(q app.Query[struct {
		N uint8 `query:"n"`
	}]) error {
		return nil
	})
	v31, _ := build(t, s)
	props := at(t, v31, "components", "schemas", "Widths", "properties").(doc)
	for field, want := range map[string]doc{
		"i8":    {"type": "integer", "format": "int32", "minimum": -128.0, "maximum": 127.0},
		"i16":   {"type": "integer", "format": "int32", "minimum": -32768.0, "maximum": 32767.0},
		"i32":   {"type": "integer", "format": "int32"},
		"i64":   {"type": "integer", "format": "int64"},
		"u8":    {"type": "integer", "format": "int32", "minimum": 0.0, "maximum": 255.0},
		"u16":   {"type": "integer", "format": "int32", "minimum": 0.0, "maximum": 65535.0},
		"u32":   {"type": "integer", "format": "int64", "minimum": 0.0, "maximum": 4294967295.0},
		"u64":   {"type": "integer", "minimum": 0.0},
		"u":     {"type": "integer", "minimum": 0.0},
		"small": {"type": "integer", "format": "int32", "minimum": -5.0, "maximum": 127.0},
		"few":   {"type": "string", "contentEncoding": "base64"},
		"ptr":   {"type": []any{"integer", "null"}, "format": "int32", "minimum": 0.0, "maximum": 65535.0},
	} {
		assert.Equal(t, want, props[field], field)
	}
	assert.Equal(t, doc{"type": "integer", "format": "int32", "minimum": 0.0, "maximum": 255.0},
		at(t, v31, "paths", "/w", "get", "parameters", "0", "schema"))

	post := func(body string) int {
		return apptest.Do(t, s, "POST", "/w", strings.NewReader(body), "Content-Type", "application/json").StatusCode
	}
	assert.Equal(t, 200, post(`{"i8":127,"u8":255,"u32":4294967295,"u64":18446744073709551615}`), "the bounds are taken")
	assert.Equal(t, 400, post(`{"i8":128}`), "past them, refused")
	assert.Equal(t, 400, post(`{"u8":-1}`))
	assert.Equal(t, 400, apptest.Get(t, s, "/w?n=256").StatusCode)
}

type (
	PageOf[T any] struct {
		Items []T `json:"items"`
	}
	Pair[K comparable, V any] struct {
		Key K `json:"key"`
		Val V `json:"val"`
	}
	// PageOfItem is named as PageOf[item] is.
	PageOfItem struct {
		Count int `json:"count"`
	}
)

// TestGenericTypeNames: an instance of a generic type is named after
// the base names of its type arguments, without their package paths;
// a name two types would have is told apart as any other, with a number.
func TestGenericTypeNames(t *testing.T) {
	t.Parallel()
	routes := func(s *app.Server) {
		s.Get("/items", func() (PageOf[item], error) { return PageOf[item]{}, nil })
		s.Get("/created", func() (PageOf[*created], error) { return PageOf[*created]{}, nil })
		s.Get("/pairs", func() (Pair[string, PageOf[item]], error) { return Pair[string, PageOf[item]]{}, nil })
		s.Get("/count", func() (PageOfItem, error) { return PageOfItem{}, nil })
	}
	s := apptest.New(t)
	routes(s)
	v31, _ := build(t, s)
	ref := func(path string) string {
		return at(t, v31, "paths", path, "get", "responses", "200", "content", "application/json", "schema", "$ref").(string)
	}
	assert.Equal(t, "#/components/schemas/PageOfItem", ref("/items"))
	assert.Equal(t, "#/components/schemas/PageOfCreated", ref("/created"))
	assert.Equal(t, "#/components/schemas/PairStringPageOfItem", ref("/pairs"))
	assert.Equal(t, "#/components/schemas/PageOfItem2", ref("/count"), "the name is taken: a number tells it apart")
	assert.Equal(t, doc{"count": doc{"type": "integer", "format": "int64"}}, at(t, v31, "components", "schemas", "PageOfItem2", "properties"))
	for name := range at(t, v31, "components", "schemas").(doc) {
		assert.NotContains(t, name, "github.com")
	}
	first := documentBytes(t, routes)
	for range 5 {
		require.Equal(t, string(first), string(documentBytes(t, routes)))
	}
}
