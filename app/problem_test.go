package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

type problemUser struct {
	Name string `json:"name" validate:"required,min=2"`
}

// errorShapeServer answers every kind of error Burrow writes, in the
// format opts choose.
func errorShapeServer(t *testing.T, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	require.NoError(t, s.Post("/users", func(b app.Body[problemUser]) (problemUser, error) { return b.Value, nil }, app.BodyLimit(64)))
	require.NoError(t, s.Get("/items/:id", func(p app.Params[itemParams]) (int, error) { return p.Value.ID, nil }))
	require.NoError(t, s.Get("/boom", func() error { return errors.New("SQL logic error: no such table: bookmarks (1)") }))
	require.NoError(t, s.Get("/down", func() error {
		return fmt.Errorf("ping: %w", httpx.NewError(http.StatusServiceUnavailable, "E_DB", "database unavailable"))
	}))
	require.NoError(t, s.Get("/taken", func() error {
		return &httpx.Error{StatusCode: http.StatusConflict, Code: "E_TAKEN", Message: "name is taken", Type: "https://example.com/probs/taken"}
	}))
	require.NoError(t, s.Get("/panic", func() error { panic("secret") }))
	// A middleware that keeps its next's answer, then panics: the 500 is
	// written outside any reply.
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(httptest.NewRecorder(), r)
				panic("secret in a middleware")
			})
		})
		return s.Get("/kept", func() (string, error) { return "kept", nil })
	}))
	return s
}

// Every error Burrow answers keeps Burrow's (Fastify's) body by default,
// byte for byte, and is RFC 9457 problem details with WithProblemDetails:
// over a real connection, the framework's refusals, a validation
// failure, a handler's errors, a panic.
func TestErrorShapes(t *testing.T) {
	t.Parallel()
	const (
		jsonType    = "application/json; charset=utf-8"
		problemType = "application/problem+json"
	)
	manyParams := "/items/1?" + strings.Repeat("&", 10000)
	tests := []struct {
		name, method, target, ctype, body string
		status                            int
		burrow, problem                   string
	}{
		{"validation", "POST", "/users", "application/json", `{"name":"a"}`, 400,
			`{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/name must NOT have fewer than 2 characters","validation":[{"path":"body/name","rule":"min","message":"must NOT have fewer than 2 characters"}]}`,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"body/name must NOT have fewer than 2 characters","instance":"/users","code":"FST_ERR_VALIDATION","validation":[{"path":"body/name","rule":"min","message":"must NOT have fewer than 2 characters"}]}`},
		{"invalid JSON", "POST", "/users", "application/json", `{"name":`, 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"unexpected end of JSON input"}`,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"unexpected end of JSON input","instance":"/users","code":"FST_ERR_CTP_INVALID_JSON_BODY"}`},
		{"params", "GET", "/items/0?x=1", "", "", 400,
			`{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be >= 1","validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]}`,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"params/id must be >= 1","instance":"/items/0","code":"FST_ERR_VALIDATION","validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]}`},
		{"too many query parameters", "GET", manyParams, "", "", 400,
			`{"statusCode":400,"code":"ERR_BAD_QUERYSTRING","error":"Bad Request","message":"querystring has more than 10000 parameters"}`,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"querystring has more than 10000 parameters","instance":"/items/1","code":"ERR_BAD_QUERYSTRING"}`},
		{"not found", "GET", "/nowhere?q=1", "", "", 404,
			`{"message":"Route GET:/nowhere?q=1 not found","error":"Not Found","statusCode":404}`,
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"Route GET:/nowhere?q=1 not found","instance":"/nowhere"}`},
		{"method not allowed", "DELETE", "/items/1", "", "", 405,
			`{"statusCode":405,"error":"Method Not Allowed","message":"Route DELETE:/items/1 not allowed"}`,
			`{"type":"about:blank","title":"Method Not Allowed","status":405,"detail":"Route DELETE:/items/1 not allowed","instance":"/items/1"}`},
		{"too large", "POST", "/users", "application/json", `{"name":"` + strings.Repeat("a", 100) + `"}`, 413,
			`{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`,
			`{"type":"about:blank","title":"Request Entity Too Large","status":413,"detail":"Request body is too large","instance":"/users","code":"FST_ERR_CTP_BODY_TOO_LARGE"}`},
		{"unsupported media type", "POST", "/users", "application/xml", `<user/>`, 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/xml"}`,
			`{"type":"about:blank","title":"Unsupported Media Type","status":415,"detail":"Unsupported Media Type: application/xml","instance":"/users","code":"FST_ERR_CTP_INVALID_MEDIA_TYPE"}`},
		{"a plain error's text is hidden", "GET", "/boom", "", "", 500,
			`{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error","instance":"/boom"}`},
		{"an *httpx.Error's 5xx is sent", "GET", "/down", "", "", 503,
			`{"statusCode":503,"code":"E_DB","error":"Service Unavailable","message":"database unavailable"}`,
			`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"database unavailable","instance":"/down","code":"E_DB"}`},
		{"an *httpx.Error with a code and a type", "GET", "/taken", "", "", 409,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"name is taken"}`,
			`{"type":"https://example.com/probs/taken","title":"Conflict","status":409,"detail":"name is taken","instance":"/taken","code":"E_TAKEN"}`},
		{"a panic", "GET", "/panic", "", "", 500,
			`{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error","instance":"/panic"}`},
		{"a middleware's panic, written outside the reply", "GET", "/kept", "", "", 500,
			`{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error","instance":"/kept"}`},
	}
	for _, problems := range []bool{false, true} {
		t.Run(fmt.Sprintf("problems=%v", problems), func(t *testing.T) {
			t.Parallel()
			var opts []app.Option
			if problems {
				opts = append(opts, app.WithProblemDetails())
			}
			addr := serve(t, errorShapeServer(t, opts...))
			for _, tt := range tests {
				var body io.Reader
				if tt.body != "" {
					body = strings.NewReader(tt.body)
				}
				req, err := http.NewRequest(tt.method, "http://"+addr+tt.target, body)
				require.NoError(t, err)
				var header []string
				if tt.ctype != "" {
					header = []string{"Content-Type", tt.ctype}
				}
				res, got := roundTrip(t, req, header...)
				assert.Equal(t, tt.status, res.StatusCode, tt.name)
				want, ctype := tt.burrow, jsonType
				if problems {
					want, ctype = tt.problem, problemType
				}
				assert.Equal(t, want, got, tt.name)
				assert.Equal(t, ctype, res.Header.Get("Content-Type"), tt.name)
			}
		})
	}
}

// The answers written before or beside any route — the 503 before Ready,
// the request time-out's 503, the 400 of a path a hand-built request
// cannot be routed on — take the server's format too.
func TestErrorShapesOutsideRoutes(t *testing.T) {
	t.Parallel()
	for _, problems := range []bool{false, true} {
		t.Run(fmt.Sprintf("problems=%v", problems), func(t *testing.T) {
			t.Parallel()
			opts := []app.Option{app.WithRequestTimeout(20 * time.Millisecond)}
			if problems {
				opts = append(opts, app.WithProblemDetails())
			}
			s := app.New(opts...)
			require.NoError(t, s.Get("/slow", func(ctx context.Context) error { <-ctx.Done(); return nil }))
			require.NoError(t, s.Get("/a/:x", func() (string, error) { return "a", nil }))

			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", "/a/b?q", nil)) // before Ready
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
			if problems {
				assert.Equal(t, `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Server is not ready","instance":"/a/b"}`, rec.Body.String())
			} else {
				assert.Equal(t, `{"statusCode":503,"error":"Service Unavailable","message":"Server is not ready"}`, rec.Body.String())
			}

			addr := serve(t, s)

			req, err := http.NewRequest("GET", "http://"+addr+"/slow", nil)
			require.NoError(t, err)
			res, got := roundTrip(t, req)
			assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
			if problems {
				assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
				assert.Equal(t, `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Request timed out","instance":"/slow","code":"FST_ERR_REQUEST_TIMEOUT"}`, got)
			} else {
				assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
				assert.Equal(t, `{"statusCode":503,"code":"FST_ERR_REQUEST_TIMEOUT","error":"Service Unavailable","message":"Request timed out"}`, got)
			}

			req = httptest.NewRequest("GET", "/a/b", nil)
			req.URL.RawPath = "/a/%zz" // net/http refuses this on the wire; a hand-built request can hold it
			rec = httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			if problems {
				assert.Equal(t, `{"type":"about:blank","title":"Bad Request","status":400,"detail":"'/a/%zz' is not a valid url component","instance":"/a/b","code":"FST_ERR_BAD_URL"}`, rec.Body.String())
			} else {
				assert.Equal(t, `{"statusCode":400,"code":"FST_ERR_BAD_URL","error":"Bad Request","message":"'/a/%zz' is not a valid url component"}`, rec.Body.String())
			}
		})
	}
}
