package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// TestRequestIDResponseHeader: every answer of a route's context echoes
// the id its log lines carry, the trusted one a client sent when it is
// well formed, else one Burrow made; the handler's, a middleware's, an
// error's, a 404's and a 405's.
func TestRequestIDResponseHeader(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	s := app.New(app.WithLogger(zap.New(core)),
		app.WithRequestIDHeader("X-Upstream-Id"), app.WithRequestIDResponseHeader("x-request-id"))
	s.Get("/id", func(req *httpx.Request) (string, error) {
		req.Log().Info("handler")
		return req.ID(), nil
	})
	s.Get("/fail", func() error { return httpx.NewError(409, "TAKEN", "taken") })
	s.Register(func(c *app.Server) error {
		c.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Has("stop") {
					w.WriteHeader(http.StatusTeapot)
					return
				}
				next.ServeHTTP(w, r)
			})
		})
		return c.Get("/mw", func(req *httpx.Request) (string, error) { return req.ID(), nil })
	}, app.Prefix("/c"))
	require.NoError(t, s.Ready())

	for _, c := range []struct {
		method, target, sent string
		status               int
	}{
		{"GET", "/id", "", 200},
		{"GET", "/id", "3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70", 200},
		{"GET", "/id", strings.Repeat("a", 129), 200},
		{"GET", "/id", "evil\"} {\"level\":\"error", 200},
		{"GET", "/fail", "up-1", 409},
		{"GET", "/nowhere", "", 404},
		{"POST", "/id", "up-2", 405},
		{"GET", "/c/mw", "", 200},
		{"GET", "/c/mw?stop", "up-3", http.StatusTeapot},
		{"DELETE", "/c/mw", "", 405},
	} {
		logs.TakeAll()
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.sent != "" {
			r.Header.Set("X-Upstream-Id", c.sent)
		}
		res, err := s.Inject(r)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, c.status, res.StatusCode, "%s %s", c.method, c.target)
		id := res.Header.Get("X-Request-Id")
		switch {
		case strings.HasPrefix(c.sent, "3f2a") || strings.HasPrefix(c.sent, "up-"):
			assert.Equal(t, c.sent, id, "a well-formed upstream id is kept")
		default:
			assert.True(t, strings.HasPrefix(id, "req-"), "%q: a made id, not %q", c.sent, id)
		}
		entries := logs.All()
		require.NotEmpty(t, entries)
		for _, e := range entries {
			assert.Equal(t, id, e.ContextMap()["reqId"], "%s %s: %q", c.method, c.target, e.Message)
		}
	}
}

// TestRequestIDNotEchoedByDefault: the default adds no header.
func TestRequestIDNotEchoedByDefault(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestIDHeader("X-Request-Id"))
	s.Get("/", func() {})
	require.NoError(t, s.Ready())
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Request-Id", "abc")
	res, err := s.Inject(r)
	require.NoError(t, err)
	res.Body.Close()
	assert.Empty(t, res.Header.Values("X-Request-Id"))
}
