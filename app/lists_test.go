package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

type listsIn struct {
	app.In
	Tags     []string `header:"X-Tags"`
	IDs      []int    `header:"X-Ids"`
	Fallback []string `header:"X-Fallback" default:"a,b"`
	One      string   `header:"X-One"`
	Flavors  []string `cookie:"flavors"`
	Sid      string   `cookie:"sid"`
}

type listsOut struct {
	Tags, Fallback, Flavors []string
	IDs                     []int
	One, Sid                string
}

// TestHeaderAndCookieLists: a slice header field takes every element of
// every line, a line read as an RFC 9110 list (comma-separated, spaces
// around an element trimmed, empty elements dropped, a comma inside a
// quoted string kept), so two lines and one line of two elements are the
// same list, as a proxy may merge them; a slice cookie field takes the
// elements of its one value alike. Single values are taken whole.
func TestHeaderAndCookieLists(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Get(s, "/l", func(_ context.Context, in listsIn) (listsOut, error) {
		return listsOut{Tags: in.Tags, IDs: in.IDs, Fallback: in.Fallback, One: in.One, Flavors: in.Flavors, Sid: in.Sid}, nil
	})
	tests := []struct {
		name   string
		header []string
		want   listsOut
	}{
		{"two lines", []string{"X-Tags", "a", "X-Tags", "b"}, listsOut{Tags: []string{"a", "b"}}},
		{"one line", []string{"X-Tags", "a,b"}, listsOut{Tags: []string{"a", "b"}}},
		{"spaces and tabs", []string{"X-Tags", " a ,\tb\t"}, listsOut{Tags: []string{"a", "b"}}},
		{"empty elements", []string{"X-Tags", ",a,, ,b,"}, listsOut{Tags: []string{"a", "b"}}},
		{"lines and lists", []string{"X-Tags", "a", "X-Tags", "b, c"}, listsOut{Tags: []string{"a", "b", "c"}}},
		{"quoted comma", []string{"X-Tags", `"a,b", c`}, listsOut{Tags: []string{`"a,b"`, "c"}}},
		{"escaped quote", []string{"X-Tags", `"a\",b", c`}, listsOut{Tags: []string{`"a\",b"`, "c"}}},
		{"numbers", []string{"X-Ids", "1, 2", "X-Ids", "3"}, listsOut{IDs: []int{1, 2, 3}}},
		{"only empty elements: absent", []string{"X-Tags", " , ", "X-Fallback", ","}, listsOut{}},
		{"single value whole", []string{"X-One", "a, b"}, listsOut{One: "a, b"}},
		{"cookie list", []string{"Cookie", "flavors=a,b; sid=x,y"}, listsOut{Flavors: []string{"a", "b"}, Sid: "x,y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := apptest.Get(t, s, "/l", tt.header...)
			require.Equal(t, 200, res.StatusCode, res.Body)
			var got listsOut
			res.JSON(t, &got)
			if tt.want.Fallback == nil {
				tt.want.Fallback = []string{"a,b"} // the default is one item, as a query's is
			}
			assert.Equal(t, tt.want, got)
		})
	}
	res := apptest.Get(t, s, "/l", "X-Ids", "1, x")
	assert.Equal(t, 400, res.StatusCode)
	assert.Contains(t, res.Body, "headers/X-Ids")
}
