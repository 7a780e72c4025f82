package httpx_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

// encodeString is what Send's encoder writes for s.
func encodeString(t testing.TB, s string) string { return encodeValue(t, s) }

func TestAppendJSONString(t *testing.T) {
	// What encoding/json writes for a byte of invalid UTF-8 depends on the
	// toolchain: v1 (Go 1.26) escapes U+FFFD, v2 (Go 1.27) writes it.
	r := strings.Trim(encodeString(t, "\xff"), `"`)
	require.Contains(t, []string{`\ufffd`, "\ufffd"}, r, "encoding/json's replacement for invalid UTF-8")
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`q"b\s`, `"q\"b\\s"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"é中😀", `"é中😀"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"bad \xff\xfe end", `"bad ` + r + r + ` end"`},
		{"cut \xe4\xb8", `"cut ` + r + r + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := string(httpx.AppendJSONString([]byte("prefix:"), tt.in))
			assert.Equal(t, "prefix:"+tt.want, got)
			assert.Equal(t, encodeString(t, tt.in), got[len("prefix:"):], "same as encoding/json")
		})
	}
}

// FuzzAppendJSONString checks the escaper against encoding/json, byte for
// byte, and that the result is valid JSON decoding to the same text when
// the text is valid UTF-8.
func FuzzAppendJSONString(f *testing.F) {
	for _, seed := range []string{"", "a", `"\`, "\x00\n\u2028", "\xff", "é\xe4\xb8", "<&>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := httpx.AppendJSONString(nil, s)
		if want := encodeString(t, s); string(got) != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q: decodes to %q", s, back)
		}
	})
}

// encodeValue is what Send's encoder writes for v, reflection and all.
func encodeValue(t testing.TB, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// An ErrorBody is encoded without reflection, into the bytes
// encoding/json writes; a type embedding it keeps its own fields.
func TestErrorBodyIsSentAsEncodingJSONWritesIt(t *testing.T) {
	t.Parallel()
	type traced struct {
		httpx.ErrorBody
		TraceID string `json:"traceId"`
	}
	for _, v := range []any{
		httpx.ErrorBody{StatusCode: 400, Code: "FST_ERR_VALIDATION", Error: "Bad Request", Message: "body/message is required",
			Validation: []httpx.FieldError{{Path: "body/message", Rule: "required", Message: "is required"}}},
		httpx.ErrorBody{StatusCode: 500, Error: "Internal Server Error", Message: "db: \"x\" <failed>\n\xff\u2028"},
		httpx.ErrorBody{StatusCode: 404, Error: "Not Found", Message: "", Validation: []httpx.FieldError{}},
		httpx.ErrorBody{StatusCode: 400, Code: "C", Error: "Bad Request", Message: "a, b", Validation: []httpx.FieldError{
			{Path: "body/a~1b", Rule: "max", Message: "must NOT have more than 5 items"}, {Path: "querystring/é", Rule: "type", Message: "must be integer"}}},
		httpx.ErrorBody{},
		traced{httpx.ErrorBody{StatusCode: 400, Error: "Bad Request", Message: "m"}, "t-1"},
		httpx.Problem{Type: "about:blank", Title: "Bad Request", Status: 400, Detail: "d \"<x>\"\n\xff\u2028", Instance: "/a%2Fb/é",
			Code: "C", Validation: []httpx.FieldError{{Path: "body/a", Rule: "max", Message: "m"}, {Path: "q", Rule: "r", Message: "n"}}},
		httpx.Problem{Validation: []httpx.FieldError{}},
		httpx.Problem{},
	} {
		rec, err := send(t, nil, v, nil)
		require.NoError(t, err)
		assert.Equal(t, encodeValue(t, v), rec.Body.String())
	}
}
