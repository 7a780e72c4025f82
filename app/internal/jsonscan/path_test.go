package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type pathItem struct {
	Qty int `json:"qty"`
}

type pathBody struct {
	Weights []float64           `json:"weights"`
	Items   []pathItem          `json:"items"`
	Ship    struct{ Zip int }   `json:"ship"`
	M       map[string]pathItem `json:"m"`
	Arr     [2]int              `json:"arr"`
	P       *pathItem           `json:"p"`
	Deep    [][]int             `json:"deep"`
	IntKeys map[int]bool        `json:"intKeys"`
}

// PathAt names the element encoding/json's type error is about, from the
// error's offset, which both of its implementations (Go 1.26's and
// Go 1.27's) report alike; so this runs on either toolchain.
func TestPathAtNamesTheMistypedElement(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`{"weights":["x"]}`, "weights/0"},
		{`{"weights": [1, 2,  "x"]}`, "weights/2"},
		{`{"items":[{"qty":1},{"qty":1.5}]}`, "items/1/qty"},
		{`{"items":{}}`, "items"},
		{`{"ship":[]}`, "ship"},
		{`{"ship":{"Zip":"a"}}`, "ship/Zip"},
		{`{"m":{"a.b/c~":{"qty":"x"}}}`, "m/a.b~1c~0/qty"},
		{`{"m":{"k\u00e9\"y":{"qty":{}}}}`, `m/ké"y/qty`},
		{`{"arr":[1,"x"]}`, "arr/1"},
		{`{"p":{"qty":true}}`, "p/qty"},
		{`{"deep":[[1],[2,{"a":[]}]]}`, "deep/1/1"},
		{`{"items":[{"qty":1e400}]}`, "items/0/qty"},
		{`{"items":[{"qty":-1}], "weights":[true]}`, "weights/0"},
		{`{"intKeys":{"1":true,"x":false}}`, "intKeys/x"},
		{`{"m":{"` + strings.Repeat("k", 100) + `":{"qty":""}}}`, "m/" + strings.Repeat("k", maxKeyEcho) + "…/qty"},
		{`"x"`, ""},
		{` [1]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			var v pathBody
			var te *json.UnmarshalTypeError
			require.True(t, errors.As(json.Unmarshal([]byte(tt.body), &v), &te))
			got, ok := PathAt([]byte(tt.body), int(te.Offset)-1)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// PathAt on every kind of byte: a bracket belongs to its value, a key to
// its member; between tokens there is no value.
func TestPathAtEachByte(t *testing.T) {
	t.Parallel()
	data := []byte(`{"a": [1] }`)
	for _, off := range []int{-1, 4, 5, 9, len(data), 100} {
		_, ok := PathAt(data, off)
		assert.False(t, ok, "offset %d", off)
	}
	for off, want := range map[int]string{0: "", 1: "a", 3: "a", 6: "a", 7: "a/0", 8: "a", 10: ""} {
		got, ok := PathAt(data, off)
		require.True(t, ok, "offset %d", off)
		assert.Equal(t, want, got, "offset %d", off)
	}
}
