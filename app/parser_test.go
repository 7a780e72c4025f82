package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

type sku struct {
	SKU string `json:"sku"`
}

// Meta is embedded: its fields are the outer object's.
type Meta struct {
	Source string `json:"source"`
}

type strictBody struct {
	Meta
	Message string `json:"message"`
	Kind    string `json:"k"`
	Size    string `json:"s"`
	Items   []sku  `json:"items"`
	Nested  *struct {
		Name string `json:"name"`
	} `json:"nested,omitempty"`
	Tree   *treeNode         `json:"tree,omitempty"`
	Extra  map[string]string `json:"extra,omitempty"`
	ByName map[string]sku    `json:"byName,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Any    any               `json:"any,omitempty"`
}

func TestOneMeaningPerBody(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Post("/", func(b app.Body[strictBody]) (strictBody, error) { return b.Value, nil })
	s.Post("/list", func(b app.Body[[]sku]) ([]sku, error) { return b.Value, nil })
	s.Post("/any", func(b app.Body[any]) (any, error) { return b.Value, nil })
	folded := func(key, field string) string {
		return `{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"key ` +
			key + ` differs from field \"` + field + `\" only in case; names must match exactly"}`
	}
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"exact names", "/", `{"message":"hi","k":"x","s":"y","source":"web"}`, 200,
			`{"source":"web","message":"hi","k":"x","s":"y","items":null}`},
		{"a second key for the same field", "/", `{"message":"hi","MESSAGE":"other"}`, 400, folded(`\"MESSAGE\"`, "message")},
		{"a key that only folds to a field", "/", `{"Message":"hi"}`, 400, folded(`\"Message\"`, "message")},
		{"KELVIN SIGN folds to k", "/", "{\"\u212a\":\"x\"}", 400, folded("\\\"\u212a\\\"", "k")},
		{"an escaped KELVIN SIGN", "/", `{"\u212a":"x"}`, 400, folded("\\\"\u212a\\\"", "k")},
		{"LATIN SMALL LETTER LONG S folds to s", "/", "{\"s\":\"a\",\"\u017f\":\"b\"}", 400, folded("\\\"\u017f\\\"", "s")},
		{"in a nested object", "/", `{"nested":{"NAME":"x"}}`, 400, folded(`\"NAME\"`, "name")},
		{"in an array of objects", "/", `{"items":[{"sku":"a"},{"Sku":"b"}]}`, 400, folded(`\"Sku\"`, "sku")},
		{"a promoted field", "/", `{"SOURCE":"x"}`, 400, folded(`\"SOURCE\"`, "source")},
		{"every level of a recursive type", "/", `{"tree":{"name":"a","children":[{"name":"b","children":[{"naMe":"c"}]}]}}`, 400,
			folded(`\"naMe\"`, "name")},
		{"the values of a map", "/", `{"byName":{"A":{"SKU":"x"}}}`, 400, folded(`\"SKU\"`, "sku")},
		{"an array body", "/list", `[{"sku":"a"},{"SKU":"b"}]`, 400, folded(`\"SKU\"`, "sku")},
		{"map keys are exact anyway", "/", `{"extra":{"MESSAGE":"1","message":"2"}}`, 200,
			`{"source":"","message":"","k":"","s":"","items":null,"extra":{"MESSAGE":"1","message":"2"}}`},
		{"a value that decodes itself is left alone", "/", `{"raw":{"MESSAGE":1}}`, 200,
			`{"source":"","message":"","k":"","s":"","items":null,"raw":{"MESSAGE":1}}`},
		{"so is an interface", "/", `{"any":{"MESSAGE":1,"message":2}}`, 200,
			`{"source":"","message":"","k":"","s":"","items":null,"any":{"MESSAGE":1,"message":2}}`},
		{"unknown keys stay ignored, and what they hold", "/", `{"message":"hi","other":{"MESSAGE":1},"more":[{"Message":1}]}`, 200,
			`{"source":"","message":"hi","k":"","s":"","items":null}`},
		{"no struct, no names", "/any", `{"MESSAGE":1,"message":2}`, 200, `{"MESSAGE":1,"message":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest("POST", tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			res, err := s.Inject(req)
			require.NoError(t, err)
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.want, string(b))
		})
	}
}

func TestContentTypeParserErrors(t *testing.T) {
	s := app.New()
	p := func(*httpx.Request, io.Reader, any) error { return nil }
	assert.ErrorIs(t, s.AddContentTypeParser("nonsense", p), app.ErrInvalidInput)
	assert.ErrorIs(t, s.AddContentTypeParser("text/csv", nil), app.ErrInvalidInput)
	require.NoError(t, s.AddContentTypeParser("text/csv", p))
	assert.ErrorIs(t, s.AddContentTypeParser("TEXT/CSV", p), app.ErrInvalidInput, "same type twice in one context")
	assert.ErrorIs(t, s.SetBodyLimit(0), app.ErrInvalidInput)
}

// Body limits: the route's own, else the nearest context's, else the
// server's.
func TestBodyLimitPrecedence(t *testing.T) {
	s := app.New(app.WithMaxBodyBytes(100))
	echo := func(b app.Body[string]) (string, error) { return fmt.Sprint(len(b.Value)), nil }
	s.Post("/server", echo)
	s.Register(func(c *app.Server) error {
		c.SetBodyLimit(10)
		c.Post("/context", echo)
		c.Post("/route", echo, app.BodyLimit(50))
		return c.Register(func(g *app.Server) error { return g.Post("/grandchild", echo) })
	})
	for _, tt := range []struct {
		path   string
		size   int
		status int
	}{
		{"/server", 100, 200}, {"/server", 101, 413},
		{"/context", 10, 200}, {"/context", 11, 413},
		{"/grandchild", 10, 200}, {"/grandchild", 11, 413},
		{"/route", 50, 200}, {"/route", 51, 413},
	} {
		req := httptest.NewRequest("POST", tt.path, strings.NewReader(strings.Repeat("x", tt.size)))
		req.Header.Set("Content-Type", "text/plain")
		res, err := s.Inject(req)
		require.NoError(t, err)
		assert.Equal(t, tt.status, res.StatusCode, "%s with %d bytes", tt.path, tt.size)
	}
}

// A Parser reading past the limit gets an error matching ErrBodyTooLarge
// (the contract http.MaxBytesReader's *http.MaxBytesError would not
// keep), and wrapping it still answers 413 and closes the connection,
// whose unread rest cannot be reused.
func TestParserReadingPastTheLimitGetsErrBodyTooLarge(t *testing.T) {
	t.Parallel()
	var matched atomic.Bool
	s := app.New()
	require.NoError(t, s.AddContentTypeParser("text/csv", func(_ *httpx.Request, body io.Reader, v any) error {
		_, err := io.ReadAll(body)
		matched.Store(errors.Is(err, app.ErrBodyTooLarge))
		return fmt.Errorf("reading the csv: %w", err)
	}))
	s.Post("/", func(app.Body[string]) (string, error) { return "ok", nil }, app.BodyLimit(64))
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	defer srv.Close()
	// No Content-Length: chunked, so the limit is met while reading.
	req, err := http.NewRequest("POST", srv.URL, io.MultiReader(strings.NewReader(strings.Repeat("a", 65))))
	require.NoError(t, err)
	res, b := roundTrip(t, req, "Content-Type", "text/csv")
	assert.True(t, matched.Load())
	assert.Equal(t, 413, res.StatusCode)
	assert.True(t, res.Close, "connection: close")
	assert.JSONEq(t, `{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`, b)
}

// TestDuplicateKeyEchoIsCut: the strict check's 400 repeats a client's
// key cut to 64 bytes, as every echo of the client's text is: two keys of
// 300 KB made a 900 KB answer.
func TestDuplicateKeyEchoIsCut(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Post("/", func(b app.Body[strictBody]) (strictBody, error) { return b.Value, nil })
	key := strings.Repeat("k", 300<<10)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"`+key+`":1,"`+key+`":2}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Inject(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Equal(t, `{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"duplicate key \"`+
		strings.Repeat("k", 64)+`…\" in JSON object"}`, string(body))
}
