package jsonscan

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type (
	fastInner struct {
		N int8     `json:"n"`
		F float32  `json:"f"`
		S []string `json:"s"`
	}
	fastBody struct {
		Message string    `json:"message"`
		Tags    []string  `json:"tags,omitempty"`
		K       int       `json:"k"`
		U       uint16    `json:"u"`
		B       bool      `json:"b"`
		X       float64   `json:"x"`
		Ints    []int64   `json:"ints"`
		Flags   []bool    `json:"flags"`
		In      fastInner `json:"in"`
		Name    string    // no tag: its field name
		Skip    string    `json:"-"`
		hidden  int
	}
)

const testDepth = 8

// decodeBoth decodes data with the fast decoder and with Check and
// encoding/json, and reports what each did.
func decodeBoth(t *testing.T, data []byte) (fast bool, fastV, slowV fastBody, slowErr error) {
	t.Helper()
	d := CompileDecoder(reflect.TypeFor[fastBody](), testDepth)
	require.NotNil(t, d)
	fast = d.Decode(data, reflect.ValueOf(&fastV).Elem())
	slowErr = Check(data, testDepth, Compile(reflect.TypeFor[fastBody]()))
	if slowErr == nil {
		slowErr = json.Unmarshal(data, &slowV)
	}
	return fast, fastV, slowV, slowErr
}

func TestDecodeTakesTheFastPath(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"message":"Typed input: decode this JSON body.","tags":["go","json","bench"]}`,
		`{}`, ` { "message" : "é" , "tags" : [ ] } `, `{"tags":null,"k":-9223372036854775808,"u":65535}`, `{"k":9223372036854775807,"ints":[-0,0]}`,
		`{"b":true,"x":-1.5e-3,"ints":[1,-2,0],"flags":[false,true],"in":{"n":-128,"f":3.25,"s":["a"]}}`,
		`{"Name":"n","unknown":"x","other":null,"n":-1.5e3}`, `{"Skip":"x","hidden":1,"in":{}}`,
		`{"ints":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33]}`,
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			fast, fastV, slowV, slowErr := decodeBoth(t, []byte(body))
			require.NoError(t, slowErr)
			assert.True(t, fast, "fast path taken")
			assert.Equal(t, slowV, fastV)
			assert.Zero(t, fastV.hidden, "unexported: not a member")
		})
	}
}

func TestDecodeLeavesTheRestToEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"m\u0065ssage":"hi"}`, // an escaped key
		`{"message":"a\x"}`, `{"message":"\u12"}`, `{"message":"\u12G4"}`, `{"message":"a\`,
		`{"message":"hi","message":"again"}`, `{"x":1,"x":2}`, `{"MESSAGE":"hi"}`, `{"name":"folded"}`,
		`{"k":1.5}`, `{"k":1e2}`, `{"k":9223372036854775808}`, `{"k":-9223372036854775809}`, `{"k":-}`, `{"u":-1}`, `{"u":65536}`, `{"in":{"n":128}}`, `{"x":1e999}`,
		`{"message":1}`, `{"tags":"a"}`, `{"tags":[null]}`, `{"in":[]}`, `{"other":{"a":1}}`,
		`{"message":"hi"} x`, `{"message":"hi",}`, `{"k":01}`, `{"k":-}`, `{"k":1.}`, `{"b":tru}`, `{`, `[]`, `null`,
		"{\"message\":\"\xff\"}", "{\"\xc3\xa9\":1}", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`,
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			fast, _, _, _ := decodeBoth(t, []byte(body))
			assert.False(t, fast, "fast path taken")
		})
	}
}

func TestCompileDecoderOnlyForWhatItDecodesExactly(t *testing.T) {
	t.Parallel()
	type embedded struct{ A string }
	for _, tt := range []struct {
		typ  reflect.Type
		fast bool
	}{
		{reflect.TypeFor[fastBody](), true},
		{reflect.TypeFor[struct{ P *string }](), false},
		{reflect.TypeFor[struct{ M map[string]string }](), false},
		{reflect.TypeFor[struct{ A any }](), false},
		{reflect.TypeFor[struct{ B []byte }](), false},
		{reflect.TypeFor[struct{ L []fastInner }](), false},
		{reflect.TypeFor[struct{ embedded }](), false},
		{reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), false},
		{reflect.TypeFor[struct{ T time.Time }](), false},
		{reflect.TypeFor[struct{ N json.Number }](), false},
		{reflect.TypeFor[struct{ R json.RawMessage }](), false},
		{reflect.TypeFor[[]string](), false},
		{reflect.TypeFor[struct{ A struct{ B struct{ C int } } }](), true},
		{reflect.TypeFor[struct {
			N int `json:"n,omitempty,omitzero"`
		}](), true},
		// Options Go 1.27's encoding/json (v2 underneath) reads and Go
		// 1.26's ignores: left to encoding/json, whichever it is.
		{reflect.TypeFor[struct {
			E fastInner `json:",embed"`
		}](), false},
		{reflect.TypeFor[struct {
			S string `json:"s,case:strict"`
		}](), false},
		{reflect.TypeFor[struct {
			F float64 `json:"f,format:nonfinite"`
		}](), false},
	} {
		got := CompileDecoder(tt.typ, testDepth) != nil
		assert.Equal(t, tt.fast, got, "%v", tt.typ)
	}
	deep := reflect.TypeFor[struct{ A struct{ B struct{ C []int } } }]()
	assert.NotNil(t, CompileDecoder(deep, 4))
	assert.Nil(t, CompileDecoder(deep, 3), "deeper than the limit")
}

// FuzzDecode: whenever the fast decoder decodes a body, Check accepts it
// and encoding/json decodes it without error into the same value.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"message":"hi","tags":["a","b"]}`, `{"k":-1,"u":2,"b":false,"x":1e3}`, `{"ints":[1,2],"flags":[true]}`,
		`{"in":{"n":1,"f":1.5,"s":["x"]}}`, `{"Name":"a","zzz":null}`, `{"message":"\ud800\udc00\u0000\n"}`, `{"tags":[]}`, `{"tags":null}`, `{"k":1,"K":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fastV, slowV, slowErr := decodeBoth(t, data)
		if !fast {
			return
		}
		if slowErr != nil {
			t.Fatalf("%q: fast path decoded what encoding/json refuses: %v", data, slowErr)
		}
		if !reflect.DeepEqual(fastV, slowV) {
			t.Fatalf("%q: fast path decoded %#v; encoding/json %#v", data, fastV, slowV)
		}
	})
}

// The input workload's valid body, and its type.
const benchBody = `{"message":"Typed input: decode this JSON body, validate it and send the same object back.","tags":["go","json","bench"]}`

type benchEcho struct {
	Message string   `json:"message"`
	Tags    []string `json:"tags,omitempty"`
}

// BenchmarkDecode is the one-pass decoder on the input workload's body;
// BenchmarkCheckUnmarshal is what it replaces: Check, then
// encoding/json.Unmarshal (its own validity scan, then decoding).
func BenchmarkDecode(b *testing.B) {
	d := CompileDecoder(reflect.TypeFor[benchEcho](), testDepth)
	data := []byte(benchBody)
	b.ReportAllocs()
	for b.Loop() {
		var v benchEcho
		if !d.Decode(data, reflect.ValueOf(&v).Elem()) {
			b.Fatal("not decoded")
		}
	}
}

func BenchmarkCheckUnmarshal(b *testing.B) {
	names := Compile(reflect.TypeFor[benchEcho]())
	data := []byte(benchBody)
	b.ReportAllocs()
	for b.Loop() {
		var v benchEcho
		if err := Check(data, testDepth, names); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// The integer parsers agree with strconv, which encoding/json calls, on
// the edges of each type and on what is not an integer.
func TestIntegersParseAsStrconvDoes(t *testing.T) {
	t.Parallel()
	for _, num := range []string{
		"0", "-0", "7", "-7", "42",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "100000000000000000000",
		"", "-", "1.5", "1e2", "--1", "1-",
	} {
		i, iok := parseInt([]byte(num))
		wantI, err := strconv.ParseInt(num, 10, 64)
		if assert.Equal(t, err == nil, iok, "parseInt(%q)", num) && iok {
			assert.Equal(t, wantI, i, "parseInt(%q)", num)
		}
		u, uok := parseUint([]byte(num))
		wantU, err := strconv.ParseUint(num, 10, 64)
		if assert.Equal(t, err == nil, uok, "parseUint(%q)", num) && uok {
			assert.Equal(t, wantU, u, "parseUint(%q)", num)
		}
	}
}
