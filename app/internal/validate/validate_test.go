package validate

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/burrow-go/burrow/httpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type (
	item struct {
		SKU string `json:"sku" validate:"required,len=4"`
		N   int    `json:"n" validate:"min=1,max=9"`
	}
	order struct {
		Email string          `json:"email" validate:"email"`
		Kind  string          `json:"kind" validate:"oneof=a b"`
		Code  string          `json:"code" pattern:"^[a-z]+$"`
		Items []item          `json:"items"`
		ByKey map[string]item `json:"byKey"`
		Note  *string         `json:"note" validate:"max=3"`
	}
	plain struct{ A, B string }
	tree  struct {
		Name string `json:"name" validate:"required"`
		Kids []tree `json:"kids"`
	}
)

func TestCompileRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			A int `validate:"email2"`
		}](), `struct { A int "validate:\"email2\"" }.A: unknown rule "email2": Burrow's rules are required, min, max, len, enum, format and the pattern tag`},
		{reflect.TypeFor[struct {
			A int `validate:"gt=1"`
		}](), `struct { A int "validate:\"gt=1\"" }.A: unknown rule "gt": Burrow's bounds include the bound: use min=`},
		{reflect.TypeFor[struct {
			A int `pattern:"x"`
		}](), `struct { A int "pattern:\"x\"" }.A: pattern on int`},
		{reflect.TypeFor[struct {
			A string `validate:"format=e-mail"`
		}](), `struct { A string "validate:\"format=e-mail\"" }.A: unknown format "e-mail": ` +
			`Burrow's formats are date, date-time, email, ipv4, ipv6, uri, uuid, weblink`},
		{reflect.TypeFor[struct {
			A int `validate:"format=email"`
		}](), `struct { A int "validate:\"format=email\"" }.A: format "email" on int: formats apply to strings`},
		{reflect.TypeFor[struct {
			A string `validate:"min=x"`
		}](), `struct { A string "validate:\"min=x\"" }.A: min="x" on string`},
		{reflect.TypeFor[struct {
			A int `validate:"omitempty"`
		}](), `struct { A int "validate:\"omitempty\"" }.A: omitempty on int: Burrow checks a number even when it is zero; make the field a pointer to make it optional`},
		{reflect.TypeFor[struct {
			A int `validate:"oneof=1 x"`
		}](), `struct { A int "validate:\"oneof=1 x\"" }.A: oneof value "x" is not an integer, as int needs`},
		{reflect.TypeFor[struct {
			A uint `validate:"enum=1|-1"`
		}](), `struct { A uint "validate:\"enum=1|-1\"" }.A: enum value "-1" is not a non-negative integer, as uint needs`},
		{reflect.TypeFor[struct {
			A float64 `validate:"oneof=NaN"`
		}](), `struct { A float64 "validate:\"oneof=NaN\"" }.A: oneof value "NaN" is not a number, as float64 needs`},
		{reflect.TypeFor[struct {
			A bool `validate:"oneof=true false"`
		}](), `struct { A bool "validate:\"oneof=true false\"" }.A: oneof on bool: Burrow's enum and oneof take strings and numbers`},
		{reflect.TypeFor[struct {
			A []int `validate:"oneof=1 2"`
		}](), `struct { A []int "validate:\"oneof=1 2\"" }.A: oneof on []int: Burrow's enum and oneof take strings and numbers`},
		{reflect.TypeFor[struct {
			A string `validate:"oneof='a b"`
		}](), `struct { A string "validate:\"oneof='a b\"" }.A: oneof='a b: a quote is not closed`},
		{reflect.TypeFor[struct {
			A string `validate:"oneof=it's"`
		}](), `struct { A string "validate:\"oneof=it's\"" }.A: oneof=it's: a quote must enclose a whole value, as 'a b'`},
		{reflect.TypeFor[struct {
			A string `validate:"oneof='a'b"`
		}](), `struct { A string "validate:\"oneof='a'b\"" }.A: oneof='a'b: a quote must enclose a whole value, as 'a b'`},
	} {
		_, err := Compile(tt.typ, "json")
		if assert.Error(t, err, "%v", tt.typ) {
			assert.Equal(t, tt.want, err.Error())
		}
	}
}

func TestCompileWithoutRules(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[plain](), reflect.TypeFor[[]map[string]plain]()} {
		v, err := Compile(typ, "json")
		require.NoError(t, err)
		assert.Nil(t, v, "%v", typ)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	v, err := Compile(reflect.TypeFor[order](), "json")
	require.NoError(t, err)
	long := "long"
	bad := order{Email: "x", Kind: "c", Code: "A1", Items: []item{{SKU: "abcd", N: 1}, {N: 10}},
		ByKey: map[string]item{"b/~": {SKU: "abcd"}, "a": {SKU: "abcd", N: 2}}, Note: &long}
	assert.Equal(t, []httpx.FieldError{
		{Path: "body/email", Rule: "format", Message: `must match format "email"`},
		{Path: "body/kind", Rule: "enum", Message: "must be equal to one of the allowed values: a, b"},
		{Path: "body/code", Rule: "pattern", Message: `must match pattern "^[a-z]+$"`},
		{Path: "body/items/1/sku", Rule: "required", Message: "is required"},
		{Path: "body/items/1/n", Rule: "max", Message: "must be <= 9"},
		{Path: "body/byKey/b~1~0/n", Rule: "min", Message: "must be >= 1"},
		{Path: "body/note", Rule: "max", Message: "must NOT have more than 3 characters"},
	}, v.Validate(reflect.ValueOf(bad), "body", nil))
	good := order{Email: "a@b.c", Kind: "a", Items: []item{{SKU: "abcd", N: 1}}}
	assert.Empty(t, v.Validate(reflect.ValueOf(good), "body", nil))
}

// TestValidValueAllocatesNothing: walking a valid value and its paths
// allocates nothing (a format's own parser, as net/mail's for email, may).
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestValidValueAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop values, so allocations are not counted under it")
	}
	v, err := Compile(reflect.TypeFor[order](), "json")
	require.NoError(t, err)
	good := &order{Kind: "a", Items: []item{{SKU: "abcd", N: 1}}}
	value := reflect.ValueOf(good).Elem()
	assert.Zero(t, testing.AllocsPerRun(100, func() { v.Validate(value, "body", nil) }))
}

func TestValidateRecursiveAndDeep(t *testing.T) {
	t.Parallel()
	v, err := Compile(reflect.TypeFor[tree](), "json")
	require.NoError(t, err)
	assert.Equal(t, []httpx.FieldError{{Path: "body/kids/0/name", Rule: "required", Message: "is required"}},
		v.Validate(reflect.ValueOf(tree{Name: "a", Kids: []tree{{}}}), "body", nil))
	deep := tree{Name: "x"}
	for range MaxDepth {
		deep = tree{Name: "x", Kids: []tree{deep}}
	}
	got := v.Validate(reflect.ValueOf(deep), "body", nil)
	require.Len(t, got, 1)
	assert.Equal(t, "depth", got[0].Rule)
	assert.Equal(t, "is nested deeper than 100 levels", got[0].Message)
}

// TestValidateStopsPastMaxFailures: the walk ends once it has found more
// failures than the answer lists, however many the value holds.
func TestValidateStopsPastMaxFailures(t *testing.T) {
	t.Parallel()
	v, err := Compile(reflect.TypeFor[[]item](), "json")
	require.NoError(t, err)
	got := v.Validate(reflect.ValueOf(make([]item, 10_000)), "body", nil)
	assert.Equal(t, MaxFailures+1, len(got))
	assert.Equal(t, "body/50/sku", got[MaxFailures].Path)

	m := map[string]item{}
	for i := range 1000 {
		m[strconv.Itoa(1000+i)] = item{}
	}
	mv, err := Compile(reflect.TypeFor[map[string]item](), "json")
	require.NoError(t, err)
	got = mv.Validate(reflect.ValueOf(m), "body", nil)
	assert.Equal(t, MaxFailures+1, len(got))
	assert.Equal(t, "body/1000/sku", got[0].Path, "still the first keys in order")
}

// TestIntegerBoundsAreExact: an integer is compared with an integer
// bound as an integer; as float64, 2^53+1 equals 2^53 and slipped past
// max=2^53.
func TestIntegerBoundsAreExact(t *testing.T) {
	t.Parallel()
	type bounded struct {
		I int64  `json:"i" validate:"max=9007199254740992"`
		U uint64 `json:"u" validate:"min=18446744073709551615"`
		F int    `json:"f" validate:"min=1.5"`
	}
	v, err := Compile(reflect.TypeFor[bounded](), "json")
	require.NoError(t, err)
	assert.Equal(t, []httpx.FieldError{
		{Path: "body/i", Rule: "max", Message: "must be <= 9007199254740992"},
		{Path: "body/u", Rule: "min", Message: "must be >= 18446744073709551615"},
	}, v.Validate(reflect.ValueOf(bounded{I: 1<<53 + 1, U: 1<<64 - 2, F: 2}), "body", nil))
	assert.Empty(t, v.Validate(reflect.ValueOf(bounded{I: 1 << 53, U: 1<<64 - 1, F: 2}), "body", nil))
	assert.Len(t, v.Validate(reflect.ValueOf(bounded{F: 1, U: 1<<64 - 1}), "body", nil), 1, "a fractional bound still bounds an int")
}

// TestEnumOnNumbersAndQuotedValues: enum and oneof take numbers as
// go-playground/validator's oneof does, and oneof reads its quoted
// values ('a b' is one value) as that validator does.
func TestEnumOnNumbersAndQuotedValues(t *testing.T) {
	t.Parallel()
	type enums struct {
		Size  int      `json:"size" validate:"oneof=1 2 3"`
		Level *uint8   `json:"level" validate:"enum=0|7"`
		Ratio float32  `json:"ratio" validate:"oneof=0 0.5 1.5"`
		Name  string   `json:"name" validate:"oneof='New York' Paris ''"`
		Tags  []string `json:"tags"`
	}
	v, err := Compile(reflect.TypeFor[enums](), "json")
	require.NoError(t, err)
	seven, nine := uint8(7), uint8(9)
	assert.Empty(t, v.Validate(reflect.ValueOf(enums{Size: 2, Level: &seven, Ratio: 0.5, Name: "New York"}), "body", nil))
	assert.Equal(t, []httpx.FieldError{
		{Path: "body/size", Rule: "enum", Message: "must be equal to one of the allowed values: 1, 2, 3"},
		{Path: "body/level", Rule: "enum", Message: "must be equal to one of the allowed values: 0, 7"},
		{Path: "body/ratio", Rule: "enum", Message: "must be equal to one of the allowed values: 0, 0.5, 1.5"},
		{Path: "body/name", Rule: "enum", Message: `must be equal to one of the allowed values: "New York", Paris, ""`},
	}, v.Validate(reflect.ValueOf(enums{Level: &nine, Ratio: 0.25, Name: "New"}), "body", nil), "a number's zero is a value")

	assert.Equal(t, []string{"New York", "Paris", ""}, mustValues(t, Rule{"oneof", "'New York' Paris ''"}))
	assert.Equal(t, []string{"a", "b"}, mustValues(t, Rule{"oneof", " a  b "}))
	assert.Equal(t, []string{"a b", "c"}, mustValues(t, Rule{"enum", "a b|c"}))
}

func mustValues(t *testing.T, r Rule) []string {
	t.Helper()
	values, err := r.Values()
	require.NoError(t, err)
	return values
}

// countedKey is a map key that counts how often it is spelled as text.
type countedKey struct {
	n     int
	calls *int
}

func (k countedKey) MarshalText() ([]byte, error) {
	*k.calls++
	return []byte(strconv.Itoa(k.n)), nil
}

type keyedChain struct {
	Name string                    `json:"name" validate:"required"`
	Kids map[countedKey]keyedChain `json:"kids"`
}

// TestNestedFailingMapsAreWalkedOnce: a map that holds a failure is
// walked again in key order, so that the failures are listed in that
// order; a chain of such maps must not walk the maps beneath each one
// again and again (twice per level: 2^depth walks, a request that never
// ended). Counted by how often the keys are spelled.
func TestNestedFailingMapsAreWalkedOnce(t *testing.T) {
	t.Parallel()
	v, err := Compile(reflect.TypeFor[keyedChain](), "json")
	require.NoError(t, err)
	const depth = 16
	calls := 0
	chain := keyedChain{} // the one failure: no name at the bottom
	for i := range depth {
		chain = keyedChain{Name: "x", Kids: map[countedKey]keyedChain{{n: i, calls: &calls}: chain}}
	}
	got := v.Validate(reflect.ValueOf(chain), "body", nil)
	require.Len(t, got, 1)
	assert.Equal(t, "body/kids/15/kids/14/kids/13/kids/12/kids/11/kids/10/kids/9/kids/8/kids/7/kids/6/kids/5/kids/4/kids/3/kids/2/kids/1/kids/0/name", got[0].Path)
	assert.LessOrEqual(t, calls, 4*depth, "each key is spelled a bounded number of times")
}

// TestMapFailuresInKeyTextOrder: a map's failures are listed in the
// order of its keys as JSON spells them — as text, so a map keyed by
// integers lists "-1", "10", "100", "9" — and a key that marshals itself
// as text is ordered and spelled by that text, each key spelled once.
func TestMapFailuresInKeyTextOrder(t *testing.T) {
	t.Parallel()
	iv, err := Compile(reflect.TypeFor[map[int]item](), "json")
	require.NoError(t, err)
	ok := item{SKU: "abcd", N: 1}
	got := iv.Validate(reflect.ValueOf(map[int]item{9: {}, 100: {SKU: "abcd"}, 5: ok, -1: {SKU: "abcd"}, 10: {SKU: "abcd"}}), "body", nil)
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"body/-1/n", "body/10/n", "body/100/n", "body/9/sku", "body/9/n"}, paths)

	calls := 0
	kv, err := Compile(reflect.TypeFor[map[countedKey]item](), "json")
	require.NoError(t, err)
	m := map[countedKey]item{}
	for _, n := range []int{30, 4, 200, 1} {
		m[countedKey{n: n, calls: &calls}] = item{SKU: "abcd"}
	}
	got = kv.Validate(reflect.ValueOf(m), "body", nil)
	paths = paths[:0]
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"body/1/n", "body/200/n", "body/30/n", "body/4/n"}, paths)
	assert.Equal(t, len(m), calls, "each key is spelled once, to be ordered and in its path")

	sv, err := Compile(reflect.TypeFor[map[namedKey]item](), "json")
	require.NoError(t, err)
	got = sv.Validate(reflect.ValueOf(map[namedKey]item{3: {SKU: "abcd"}}), "body", nil)
	require.Len(t, got, 1)
	assert.Equal(t, "body/3/n", got[0].Path, "the key as JSON spells it, not as String does")
}

// namedKey is an integer key with a String method, which JSON ignores.
type namedKey int

func (namedKey) String() string { return "three" }

// TestLongKeysAreCutInPaths: a failure's path repeats a map key's first
// 64 bytes, cut where a UTF-8 sequence starts, then escaped.
func TestLongKeysAreCutInPaths(t *testing.T) {
	t.Parallel()
	v, err := Compile(reflect.TypeFor[map[string]item](), "json")
	require.NoError(t, err)
	for key, want := range map[string]string{
		strings.Repeat("k", 64):       "body/" + strings.Repeat("k", 64) + "/n",
		strings.Repeat("k", 65):       "body/" + strings.Repeat("k", 64) + "…/n",
		"k" + strings.Repeat("é", 40): "body/k" + strings.Repeat("é", 31) + "…/n",
		strings.Repeat("/", 100):      "body/" + strings.Repeat("~1", 64) + "…/n",
	} {
		got := v.Validate(reflect.ValueOf(map[string]item{key: {SKU: "abcd"}}), "body", nil)
		require.Len(t, got, 1)
		assert.Equal(t, want, got[0].Path)
	}
}
