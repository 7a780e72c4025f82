package app_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
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

type newUser struct {
	Name  string   `json:"name" validate:"required,min=2,max=20"`
	Email string   `json:"email" validate:"required,format=email"`
	Role  string   `json:"role" validate:"enum=admin|member"`
	Age   int      `json:"age" validate:"min=0,max=150"`
	Tags  []string `json:"tags" validate:"max=3"`
	Code  string   `json:"code" pattern:"^[A-Z]{3}$"`
	ID    string   `json:"id" validate:"format=uuid"`
}

type search struct {
	Q     string   `query:"q" validate:"required"`
	Limit int      `query:"limit" validate:"max=100"`
	Tags  []string `query:"tag"`
	Exact *bool    `query:"exact"`
}

type itemParams struct {
	ID int `param:"id" validate:"min=1"`
}

// inputServer has typed routes in "api" and a sibling "csv" with a parser
// of its own.
func inputServer(t *testing.T) *httptest.Server {
	s := app.New()
	s.Register(func(api *app.Server) error {
		api.Post("/users", func(b app.Body[newUser]) (newUser, error) { return b.Value, nil })
		api.Post("/small", func(b app.Body[map[string]any]) (map[string]any, error) { return b.Value, nil }, app.BodyLimit(64))
		api.Post("/text", func(b app.Body[string]) (string, error) { return "got " + b.Value, nil })
		api.Post("/csv", func(b app.Body[[]string]) ([]string, error) { return b.Value, nil })
		api.Get("/search", func(q app.Query[search]) (string, error) {
			exact := "unset"
			if q.Value.Exact != nil {
				exact = fmt.Sprint(*q.Value.Exact)
			}
			return fmt.Sprintf("%s %d %v %s", q.Value.Q, q.Value.Limit, q.Value.Tags, exact), nil
		})
		return api.Get("/items/:id", func(p app.Params[itemParams]) (string, error) { return fmt.Sprint("item ", p.Value.ID), nil })
	}, app.Name("api"))
	s.Register(func(csv *app.Server) error {
		csv.AddContentTypeParser("text/csv", func(_ *httpx.Request, body io.Reader, v any) error {
			b, err := io.ReadAll(body)
			if err != nil {
				return err
			}
			*(v.(*[]string)) = strings.Split(strings.TrimSpace(string(b)), ",")
			return nil
		})
		return csv.Post("/csv/in", func(b app.Body[[]string]) ([]string, error) { return b.Value, nil })
	}, app.Name("csv"))
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// post sends body and returns the status, the body and whether the
// server closes the connection.
func post(t *testing.T, url, ctype string, body io.Reader) (int, string, bool) {
	req, err := http.NewRequest("POST", url, body)
	require.NoError(t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, b := roundTrip(t, req)
	return res.StatusCode, b, res.Close
}

// chunked hides a reader's length, so the request is sent chunked.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

func TestBodies(t *testing.T) {
	srv := inputServer(t)
	valid := `{"name":"ada","email":"ada@example.com","role":"admin","age":36,"tags":["x"],"code":"ABC","id":"123e4567-e89b-12d3-a456-426614174000"}`
	tests := []struct {
		name, path, ctype string
		body              io.Reader
		status            int
		want              string
	}{
		{"JSON", "/users", "application/json", strings.NewReader(valid), 200, valid},
		{"+json suffix", "/users", "application/vnd.api+json", strings.NewReader(valid), 200, valid},
		{"media type case and parameters", "/users", "Application/JSON; charset=UTF-8", strings.NewReader(valid), 200, valid},
		{"text", "/text", "text/plain; charset=utf-8", strings.NewReader("hello"), 200, "got hello"},
		{"custom parser in its context", "/csv/in", "text/csv", strings.NewReader("a,b"), 200, `["a","b"]`},
		{"custom parser not in a sibling", "/csv", "text/csv", strings.NewReader("a,b"), 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: text/csv"}`},
		{"no parser", "/users", "application/xml", strings.NewReader("<a/>"), 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/xml"}`},
		{"body without content type", "/users", "", strings.NewReader(valid), 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: none"}`},
		{"text into a struct", "/users", "text/plain", strings.NewReader("hi"), 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: text/plain"}`},
		{"empty JSON", "/users", "application/json", strings.NewReader(""), 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_EMPTY_JSON_BODY","error":"Bad Request","message":"Body cannot be empty when content-type is set to 'application/json'"}`},
		{"invalid JSON", "/users", "application/json", strings.NewReader(`{"name":`), 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"unexpected end of JSON input"}`},
		{"trailing garbage", "/users", "application/json", strings.NewReader(valid + ` {}`), 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"invalid character '{' after top-level value"}`},
		{"duplicate keys", "/users", "application/json", strings.NewReader(`{"name":"ada","na\u006de":"eve"}`), 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"duplicate key \"name\" in JSON object"}`},
		{"nesting bomb", "/small", "application/json", strings.NewReader(`{"a":` + strings.Repeat("[", 40)), 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"unexpected end of JSON input"}`},
		{"wrong type", "/users", "application/json", strings.NewReader(`{"name":"ada","email":"a@b.co","age":"old"}`), 400,
			`{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/age must be integer","validation":[{"path":"body/age","rule":"type","message":"must be integer"}]}`},
		{"413 by content-length", "/small", "application/json", strings.NewReader(`{"a":"` + strings.Repeat("x", 100) + `"}`), 413,
			`{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`},
		{"413 by chunked stream", "/small", "application/json", chunked{strings.NewReader(`{"a":"` + strings.Repeat("x", 100) + `"}`)}, 413,
			`{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`},
		{"at the limit", "/small", "application/json", chunked{strings.NewReader(`{"a":"` + strings.Repeat("x", 56) + `"}`)}, 200,
			`{"a":"` + strings.Repeat("x", 56) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, closed := post(t, srv.URL+tt.path, tt.ctype, tt.body)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.want, body)
			if status == 413 {
				assert.True(t, closed, "connection: close")
			}
		})
	}
}

func TestDeepNestingIsRefusedBeforeDecoding(t *testing.T) {
	srv := inputServer(t)
	status, body, _ := post(t, srv.URL+"/users", "application/json", strings.NewReader(strings.Repeat("[", 5000)+strings.Repeat("]", 5000)))
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "JSON nested deeper than 100 levels")
}

func TestValidationListsEveryField(t *testing.T) {
	srv := inputServer(t)
	status, body, _ := post(t, srv.URL+"/users", "application/json", strings.NewReader(
		`{"name":"a","email":"not-an-email","role":"root","age":200,"tags":["1","2","3","4"],"code":"abc","id":"nope"}`))
	assert.Equal(t, 400, status)
	assert.Equal(t, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",`+
		`"message":"body/name must NOT have fewer than 2 characters, body/email must match format \"email\", body/role must be equal to one of the allowed values: admin, member, body/age must be <= 150, body/tags must NOT have more than 3 items, body/code must match pattern \"^[A-Z]{3}$\", body/id must match format \"uuid\"",`+
		`"validation":[`+
		`{"path":"body/name","rule":"min","message":"must NOT have fewer than 2 characters"},`+
		`{"path":"body/email","rule":"format","message":"must match format \"email\""},`+
		`{"path":"body/role","rule":"enum","message":"must be equal to one of the allowed values: admin, member"},`+
		`{"path":"body/age","rule":"max","message":"must be <= 150"},`+
		`{"path":"body/tags","rule":"max","message":"must NOT have more than 3 items"},`+
		`{"path":"body/code","rule":"pattern","message":"must match pattern \"^[A-Z]{3}$\""},`+
		`{"path":"body/id","rule":"format","message":"must match format \"uuid\""}]}`, body)

	status, body, _ = post(t, srv.URL+"/users", "", nil)
	assert.Equal(t, 400, status, "no body at all: the zero value, which misses required fields")
	assert.Contains(t, body, `"validation":[{"path":"body/name","rule":"required","message":"is required"},{"path":"body/email","rule":"required","message":"is required"}]`)
}

func TestQueryAndParams(t *testing.T) {
	srv := inputServer(t)
	tests := []struct {
		target string
		status int
		want   string
	}{
		{"/search?q=go&limit=10&tag=a&tag=b&exact=true", 200, "go 10 [a b] true"},
		{"/search?q=go", 200, "go 0 [] unset"},
		{"/search?q=go&limit=abc&exact=maybe", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"querystring/limit must be integer, querystring/exact must be boolean","validation":[{"path":"querystring/limit","rule":"type","message":"must be integer"},{"path":"querystring/exact","rule":"type","message":"must be boolean"}]}`},
		{"/search?limit=500", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"querystring/q is required, querystring/limit must be <= 100","validation":[{"path":"querystring/q","rule":"required","message":"is required"},{"path":"querystring/limit","rule":"max","message":"must be <= 100"}]}`},
		{"/items/42", 200, "item 42"},
		{"/items/abc", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be integer","validation":[{"path":"params/id","rule":"type","message":"must be integer"}]}`},
		{"/items/0", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be >= 1","validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]}`},
		{"/items/99999999999999999999", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be integer","validation":[{"path":"params/id","rule":"type","message":"must be integer"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			res, err := http.Get(srv.URL + tt.target)
			require.NoError(t, err)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.want, string(b))
		})
	}
}

// countingServer serves s on a real listener that counts the bytes the
// server reads from its connections, closed when the test ends.
func countingServer(t *testing.T, s *app.Server) (*httptest.Server, *atomic.Int64) {
	read := &atomic.Int64{}
	srv := httptest.NewUnstartedServer(s)
	srv.Listener = countingListener{srv.Listener, read}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, read
}

// countingListener counts the bytes the server reads from its connections.
type countingListener struct {
	net.Listener
	read *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, l.read}, err
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func TestAuthHookRejectsALargeBodyWithoutReadingIt(t *testing.T) {
	s := app.New(app.WithMaxBodyBytes(64 << 20))
	parsed := false
	s.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
		if req.Header("Authorization") != "Bearer ok" {
			return rep.Code(401).Send(`denied`)
		}
		return nil
	})
	s.Post("/upload", func(b app.Body[string]) error { parsed = true; return nil })
	require.NoError(t, s.Ready())
	srv, read := countingServer(t, s)

	const size = 10 << 20
	req, err := http.NewRequest("POST", srv.URL+"/upload", io.LimitReader(zeros{}, size))
	require.NoError(t, err)
	req.ContentLength = size
	req.Header.Set("Content-Type", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err == nil { // the server may close before the client finished sending
		res.Body.Close()
		assert.Equal(t, 401, res.StatusCode)
	}
	assert.False(t, parsed)
	assert.Less(t, read.Load(), int64(1<<20), "the server read %d of %d bytes", read.Load(), size)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestPreParsingWrapsTheBodyAndTheLimitCountsDecodedBytes(t *testing.T) {
	s := app.New()
	s.AddHook(app.PreParsing, func(req *httpx.Request) error {
		if req.Header("Content-Encoding") != "gzip" {
			return nil
		}
		zr, err := gzip.NewReader(req.BodyReader())
		if err != nil {
			return httpx.NewError(400, "BAD_GZIP", err.Error())
		}
		req.SetBodyReader(zr)
		return nil
	})
	s.Post("/in", func(b app.Body[string]) (string, error) { return fmt.Sprint(len(b.Value)), nil }, app.BodyLimit(1<<10))
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	defer srv.Close()
	gz := func(n int) io.Reader {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(bytes.Repeat([]byte("a"), n))
		w.Close()
		return &buf
	}
	for _, tt := range []struct {
		n      int
		status int
		body   string
	}{{1000, 200, "1000"}, {1 << 20, 413, `{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`}} {
		req, _ := http.NewRequest("POST", srv.URL+"/in", gz(tt.n))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("Content-Encoding", "gzip")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, tt.status, res.StatusCode, "%d bytes", tt.n)
		assert.Equal(t, tt.body, string(b))
	}
}

func TestPreValidationSeesTheBodyBeforeValidation(t *testing.T) {
	s := app.New()
	s.AddHook(app.PreValidation, func(b app.Body[newUser], req *httpx.Request) {
		// Defaults go in before the constraints are checked.
		if u := req.Body().(*newUser); u.Email == "" {
			u.Email = b.Value.Name + "@example.com"
		}
	})
	s.Post("/u", func(b app.Body[newUser]) (string, error) { return b.Value.Email, nil })
	req := httptest.NewRequest("POST", "/u", strings.NewReader(`{"name":"ada"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Inject(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "ada@example.com", string(b))
}

func TestInputMisuseFailsReady(t *testing.T) {
	type badTag struct {
		N int `json:"n" validate:"min=x"`
	}
	type badRule struct {
		S string `json:"s" validate:"frobnicate"`
	}
	tests := []struct {
		name  string
		build func(s *app.Server)
		msg   string
	}{
		{"body in onRequest", func(s *app.Server) {
			s.Post("/", func() {}, app.WithHook(app.OnRequest, func(app.Body[string]) {}))
		}, "cannot be taken in an onRequest hook, which runs before the body is parsed"},
		{"two body types", func(s *app.Server) {
			s.Post("/", func(app.Body[string]) {}, app.WithHook(app.PreHandler, func(app.Body[int]) {}))
		}, "body asked for as string and as int"},
		{"query into a string", func(s *app.Server) { s.Get("/", func(app.Query[string]) {}) }, "querystring must be decoded into a struct"},
		{"bad bound", func(s *app.Server) { s.Post("/", func(app.Body[badTag]) {}) }, `min="x" on int`},
		{"unknown rule", func(s *app.Server) { s.Post("/", func(app.Body[badRule]) {}) }, `unknown rule "frobnicate"`},
		{"body in an error handler", func(s *app.Server) {
			s.SetErrorHandler(func(app.Body[string]) {})
			s.Get("/", func() {})
		}, "cannot be taken in an error handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			tt.build(s)
			err := s.Ready()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			var re *app.RouteError
			assert.ErrorAs(t, err, &re)
		})
	}
}

type address struct {
	City string `json:"city" validate:"required"`
	Zip  string `json:"zip" pattern:"^[0-9]{5}$"`
}

type lineItem struct {
	SKU string `json:"sku" validate:"required"`
	Qty int    `json:"qty" validate:"min=1"`
}

type order struct {
	Ship     address     `json:"ship"`
	Bill     *address    `json:"bill"`
	Items    []lineItem  `json:"items" validate:"required,max=3"`
	Extras   []*lineItem `json:"extras"`
	Discount *int        `json:"discount" validate:"max=50"`
	Paid     bool        `json:"paid"`
	Note     string      `json:"note"`
	Weights  []float64   `json:"weights"`
	Meta     struct {
		Source string `json:"source" validate:"enum=web|app"`
	} `json:"meta"`
}

func TestNestedValidationAndTypeErrors(t *testing.T) {
	s := app.New()
	s.Post("/orders", func(b app.Body[order]) (string, error) { return "ok", nil })
	s.Post("/raw", func(b app.Body[[]byte]) (string, error) { return fmt.Sprint(len(b.Value)), nil })
	tests := []struct {
		name, body, ctype string
		status            int
		want              string
	}{
		{"valid, optional pointers absent", `{"ship":{"city":"Oslo"},"items":[{"sku":"a","qty":1}]}`, "application/json", 200, "ok"},
		{"nested fields, slices of structs and set pointers are checked",
			`{"ship":{"zip":"12"},"bill":{"city":""},"items":[{"sku":"a","qty":1},{"qty":0}],"extras":[{"sku":"x","qty":-1}],"discount":80,"meta":{"source":"fax"}}`,
			"application/json", 400,
			`"validation":[` +
				`{"path":"body/ship/city","rule":"required","message":"is required"},` +
				`{"path":"body/ship/zip","rule":"pattern","message":"must match pattern \"^[0-9]{5}$\""},` +
				`{"path":"body/bill/city","rule":"required","message":"is required"},` +
				`{"path":"body/items/1/sku","rule":"required","message":"is required"},` +
				`{"path":"body/items/1/qty","rule":"min","message":"must be >= 1"},` +
				`{"path":"body/extras/0/qty","rule":"min","message":"must be >= 1"},` +
				`{"path":"body/discount","rule":"max","message":"must be <= 50"},` +
				`{"path":"body/meta/source","rule":"enum","message":"must be equal to one of the allowed values: web, app"}]`},
		{"boolean expected", `{"paid":"yes"}`, "application/json", 400, `"message":"body/paid must be boolean"`},
		{"string expected", `{"note":5}`, "application/json", 400, `"message":"body/note must be string"`},
		{"array expected", `{"items":{}}`, "application/json", 400, `"message":"body/items must be array"`},
		{"object expected", `{"ship":[]}`, "application/json", 400, `"message":"body/ship must be object"`},
		// A type error names the element, as a validation failure does, on
		// Go 1.26 and 1.27 alike (encoding/json's own path differs there).
		{"number expected", `{"weights":[1, "x"]}`, "application/json", 400,
			`"validation":[{"path":"body/weights/1","rule":"type","message":"must be number"}]`},
		{"integer expected in a nested field", `{"items":[{"sku":"a","qty":1},{"qty":1.5}]}`, "application/json", 400,
			`"message":"body/items/1/qty must be integer"`},
		{"integer expected under a pointer", `{"extras":[null,{"qty":"2"}]}`, "application/json", 400,
			`"message":"body/extras/1/qty must be integer"`},
		{"bytes from text", "abc", "text/plain", 200, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/orders"
			if tt.ctype == "text/plain" {
				path = "/raw"
			}
			req := httptest.NewRequest("POST", path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			res, err := s.Inject(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(res.Body)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Contains(t, string(b), tt.want)
		})
	}
}
