package app_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

func TestWriteErrorInTheServersFormat(t *testing.T) {
	t.Parallel()
	errClosed := httpx.NewError(http.StatusServiceUnavailable, "CLOSED", "Closed for maintenance")
	cases := []struct {
		name   string
		opts   []app.Option
		method string
		target string
		err    error
		ctype  string
		body   string
	}{
		{"default", nil, http.MethodGet, "/a", errClosed, httpx.ContentTypeJSON,
			`{"statusCode":503,"code":"CLOSED","error":"Service Unavailable","message":"Closed for maintenance"}`},
		{"problem details", []app.Option{app.WithProblemDetails()}, http.MethodGet, "/a?q=1", errClosed, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Closed for maintenance","instance":"/a","code":"CLOSED"}`},
		{"a 404 path", []app.Option{app.WithProblemDetails()}, http.MethodGet, "/nowhere", errClosed, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Closed for maintenance","instance":"/nowhere","code":"CLOSED"}`},
		{"a plain error's text is hidden", nil, http.MethodGet, "/a", errors.New("dial tcp 10.0.0.5:5432: refused"), httpx.ContentTypeJSON,
			`{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`},
		{"HEAD: no body", nil, http.MethodHead, "/a", errClosed, httpx.ContentTypeJSON, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t, append(c.opts, app.WithoutRequestLogging())...)
			s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Retry-After", "30")
					app.WriteError(w, r, c.err)
				})
			})
			s.Get("/a", func() (string, error) { return "ok", nil })
			require.NoError(t, s.Ready())
			r := apptest.Inject(t, s, httptest.NewRequest(c.method, c.target, nil))
			status, _ := httpx.ErrorFormat{}.Body(c.err, nil)
			assert.Equal(t, status, r.StatusCode)
			assert.Equal(t, c.body, r.Body)
			assert.Equal(t, c.ctype, r.Header.Get("Content-Type"))
			assert.Equal(t, "30", r.Header.Get("Retry-After"), "what the middleware set stays")
			if c.method != http.MethodHead {
				assert.Equal(t, strconv.Itoa(len(c.body)), r.Header.Get("Content-Length"))
			}
		})
	}
}

func TestWriteErrorOutsideAServer(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	app.WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), httpx.NewError(http.StatusTeapot, "", "short and stout"))
	assert.Equal(t, http.StatusTeapot, w.Code)
	assert.Equal(t, httpx.ContentTypeJSON, w.Header().Get("Content-Type"))
	assert.Equal(t, `{"statusCode":418,"error":"I'm a teapot","message":"short and stout"}`, w.Body.String())
}
