package jsonscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

type (
	item struct {
		Message string `json:"message"`
		K       int    `json:"k"`
	}
	raw  struct{ Body json.RawMessage }
	list struct {
		Items []item          `json:"items"`
		ByID  map[string]item `json:"byId"`
		Raw   raw             `json:"raw"`
		Next  *list           `json:"next"`
	}
)

func TestCheck(t *testing.T) {
	t.Parallel()
	names := Compile(reflect.TypeFor[list]())
	for _, tt := range []struct {
		body  string
		depth int
		want  string // "" for no error
	}{
		{`{"items":[{"message":"a","k":1}],"byId":{"x":{"k":2}}}`, 10, ""},
		{`{"a":1,"a":2}`, 10, `duplicate key "a" in JSON object`},
		{`{"a\u0062":1,"ab":2}`, 10, `duplicate key "ab" in JSON object`},
		{"{\"\xf6\":0,\"\x9a\":0}", 10, "duplicate key \"\ufffd\" in JSON object"},
		{`[{"a":1},{"a":2}]`, 10, ""},
		{`{"items":[{"MESSAGE":"a"}]}`, 10, `key "MESSAGE" differs from field "message" only in case; names must match exactly`},
		{"{\"byId\":{\"x\":{\"\u212a\":1}}}", 10, "key \"\u212a\" differs from field \"k\" only in case; names must match exactly"},
		{`{"next":{"next":{"Items":[]}}}`, 10, `key "Items" differs from field "items" only in case; names must match exactly`},
		{`{"byId":{"MESSAGE":{}}}`, 10, ""}, // map keys are data
		{`{"raw":{"Body":{"MESSAGE":1,"MESSAGE":2}}}`, 10, `duplicate key "MESSAGE" in JSON object`},
		{`{"raw":{"Body":{"MESSAGE":1}}}`, 10, ""}, // RawMessage reads its own bytes
		{`{"items":{"MESSAGE":1}}`, 10, ""},        // the wrong type: the decoder says so
		{strings.Repeat("[", 3) + strings.Repeat("]", 3), 3, ""},
		{strings.Repeat("[", 4) + strings.Repeat("]", 4), 3, "JSON nested deeper than 3 levels"},
		{`{"a":"unterminated`, 10, ""},
		// A client's key is repeated up to 64 bytes, cut where a
		// character starts; a field's name is the server's own.
		{`{"` + strings.Repeat("x", 300<<10) + `":1,"` + strings.Repeat("x", 300<<10) + `":2}`, 10,
			`duplicate key "` + strings.Repeat("x", 64) + `…" in JSON object`},
		{`{"` + strings.Repeat("é", 40) + `":1,"` + strings.Repeat("é", 40) + `":2}`, 10,
			`duplicate key "` + strings.Repeat("é", 32) + `…" in JSON object`},
		{`{"` + strings.Repeat("x", 64) + `":1,"` + strings.Repeat("x", 64) + `":2}`, 10,
			`duplicate key "` + strings.Repeat("x", 64) + `" in JSON object`},
	} {
		err := Check([]byte(tt.body), tt.depth, names)
		if tt.want == "" {
			assert.NoError(t, err, tt.body)
		} else if assert.Error(t, err, tt.body) {
			assert.Equal(t, tt.want, err.Error(), tt.body)
		}
	}
}

func TestCompileWithoutStructs(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[[]string](),
		reflect.TypeFor[map[string]any](), reflect.TypeFor[json.RawMessage]()} {
		assert.Nil(t, Compile(typ), "%v", typ)
	}
	assert.NotNil(t, Compile(reflect.TypeFor[*[]map[string]item]()))
}
