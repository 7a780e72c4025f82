package textdecode

import (
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/httpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type target struct {
	S    string  `query:"s"`
	B    bool    `query:"b"`
	I8   int8    `query:"i8"`
	U    uint    `query:"u"`
	F    float32 `query:"f"`
	P    *int    `query:"p"`
	L    []int   `query:"l"`
	IP   net.IP  `query:"ip"`
	Skip string  `query:"-"`
	Def  string  // no tag: the field's name
}

func TestCompileRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[int](), "int must be a struct"},
		{reflect.TypeFor[struct{ C chan int }](), "struct { C chan int }.C: cannot decode chan int from text"},
		{reflect.TypeFor[struct{ M []map[string]int }](), "struct { M []map[string]int }.M: cannot decode map[string]int from text"},
		{reflect.TypeFor[struct{ Raw []byte }](), "struct { Raw []uint8 }.Raw: cannot decode []uint8 from text"},
	} {
		_, err := Compile(tt.typ, "query")
		require.Error(t, err, "%v", tt.typ)
		assert.Equal(t, tt.want, err.Error())
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	d, err := Compile(reflect.TypeFor[target](), "query")
	require.NoError(t, err)
	values := map[string][]string{
		"s": {"x", "y"}, "b": {"true"}, "i8": {"-7"}, "u": {"9"}, "f": {"1.5"}, "p": {"3"},
		"l": {"1", "2"}, "ip": {"10.0.0.1"}, "Skip": {"no"}, "Def": {"d"},
	}
	var got target
	bad := d.Decode(reflect.ValueOf(&got).Elem(), "querystring", func(n string) []string { return values[n] }, nil)
	assert.Empty(t, bad)
	three := 3
	assert.Equal(t, target{S: "x", B: true, I8: -7, U: 9, F: 1.5, P: &three, L: []int{1, 2},
		IP: net.ParseIP("10.0.0.1"), Def: "d"}, got)
}

func TestDecodeReportsEachField(t *testing.T) {
	t.Parallel()
	d, err := Compile(reflect.TypeFor[target](), "query")
	require.NoError(t, err)
	values := map[string][]string{
		"b": {"maybe"}, "i8": {"300"}, "u": {"-1"}, "f": {"x"}, "p": {"x"}, "l": {"1", "x"}, "ip": {"999"}, "s": {"ok"},
	}
	got := target{I8: 1}
	bad := d.Decode(reflect.ValueOf(&got).Elem(), "querystring", func(n string) []string { return values[n] }, nil)
	assert.Equal(t, []httpx.FieldError{
		{Path: "querystring/b", Rule: "type", Message: "must be boolean"},
		{Path: "querystring/i8", Rule: "type", Message: "must be integer"},
		{Path: "querystring/u", Rule: "type", Message: "must be a non-negative integer"},
		{Path: "querystring/f", Rule: "type", Message: "must be number"},
		{Path: "querystring/p", Rule: "type", Message: "must be integer"},
		{Path: "querystring/l", Rule: "type", Message: "must be array of integer"},
		{Path: "querystring/ip", Rule: "type", Message: "must be valid net.IP"},
	}, bad)
	assert.Equal(t, target{S: "ok"}, got, "a field that does not convert is left zero")
}

// TestDecodeScalarsAllocatesNothing: filling string, boolean and numeric
// fields from text is on the request path, so it allocates nothing.
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestDecodeScalarsAllocatesNothing(t *testing.T) {
	type scalars struct {
		S  string  `query:"s"`
		B  bool    `query:"b"`
		I8 int8    `query:"i8"`
		U  uint    `query:"u"`
		F  float32 `query:"f"`
	}
	d, err := Compile(reflect.TypeFor[scalars](), "query")
	require.NoError(t, err)
	values := map[string][]string{"s": {"x"}, "b": {"true"}, "i8": {"-8"}, "u": {"7"}, "f": {"1.5"}}
	get := func(name string) []string { return values[name] }
	var got scalars
	v := reflect.ValueOf(&got).Elem()
	allocs := testing.AllocsPerRun(100, func() { d.Decode(v, "query", get, nil) })
	assert.Equal(t, scalars{"x", true, -8, 7, 1.5}, got)
	assert.Zero(t, allocs)
}

// TestDecodeOne decodes single values (path parameters, cookies) with
// defaults, and a slice field from its one value.
func TestDecodeOne(t *testing.T) {
	t.Parallel()
	type one struct {
		ID    int      `path:"id"`
		Page  *int     `path:"page" default:"2"`
		Tags  []string `path:"tags"`
		Other string   // untagged: not an Only field
	}
	d, err := Compile(reflect.TypeFor[one](), inputfields.Only("path"))
	require.NoError(t, err)
	values := map[string]string{"id": "7", "tags": "a"}
	var v one
	bad := d.DecodeOne(reflect.ValueOf(&v).Elem(), "params", func(name string) (string, bool) {
		s, ok := values[name]
		return s, ok
	}, nil)
	assert.Empty(t, bad)
	require.NotNil(t, v.Page)
	assert.Equal(t, one{ID: 7, Page: v.Page, Tags: []string{"a"}}, v)
	assert.Equal(t, 2, *v.Page)

	values["id"] = "x"
	bad = d.DecodeOne(reflect.ValueOf(&v).Elem(), "params", func(name string) (string, bool) {
		s, ok := values[name]
		return s, ok
	}, nil)
	assert.Equal(t, []httpx.FieldError{{Path: "params/id", Rule: "type", Message: "must be integer"}}, bad)

	_, err = Compile(reflect.TypeFor[struct {
		N int `query:"n" default:"many"`
	}](), "query")
	assert.EqualError(t, err, `struct { N int "query:\"n\" default:\"many\"" }.N: default "many" does not convert to int`)
}

// TestSplitLists: a value is an RFC 9110 list; values that are already
// single elements are returned as they are, allocating nothing. Not
// parallel: AllocsPerRun counts the whole process's allocations.
func TestSplitLists(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want []string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a, b"}, []string{"a", "b"}},
		{[]string{"", " ", ",", " ,\t, "}, nil},
		{[]string{`"a,b",c`}, []string{`"a,b"`, "c"}},
		{[]string{`"a\",b" , c`}, []string{`"a\",b"`, "c"}},
		{[]string{`"a, b`}, []string{`"a, b`}},
		{[]string{`"a\`}, []string{`"a\`}},
		{[]string{`a\,b`}, []string{`a\`, "b"}},
	} {
		assert.Equal(t, tt.want, splitLists(tt.in), "%q", tt.in)
	}
	plain := []string{"a", "b c"}
	assert.Zero(t, testing.AllocsPerRun(10, func() { splitLists(plain) }))
}

// FuzzSplitLists: whatever a client sends, the elements are non-empty,
// trimmed, and pieces of the value in order, at most one per comma and
// one more.
func FuzzSplitLists(f *testing.F) {
	for _, s := range []string{"a,b", `"a,b", c`, `"\"`, " , ", `"a\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := splitLists([]string{s})
		require.LessOrEqual(t, len(got), strings.Count(s, ",")+1)
		rest := s
		for _, e := range got {
			require.NotEmpty(t, e)
			require.Equal(t, strings.Trim(e, " \t"), e)
			i := strings.Index(rest, e)
			require.GreaterOrEqual(t, i, 0, "%q is not a piece of %q after the elements before it", e, s)
			rest = rest[i+len(e):]
		}
	})
}
