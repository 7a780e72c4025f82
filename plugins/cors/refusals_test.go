package cors_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
	"github.com/burrow-go/burrow/plugins/csrf"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/shed"
)

// pressure is a shed.Source that always reports a starved scheduler: the
// shedder samples it at Ready, so every request is shed from the first.
type pressure struct{}

func (pressure) Sample() shed.Signals { return shed.Signals{SchedLatency: time.Second} }

const origin = "https://app.example"

// A refusal by a plugin of the root, for a route of a child context with
// a CORS policy, carries that policy's headers whatever the order of the
// registrations: without them the browser shows its script a CORS error
// instead of the 429.
func TestAncestorsRefusalsCarryTheChildsCORSHeaders(t *testing.T) {
	t.Parallel()
	perIP := ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()})
	tests := []struct {
		name   string
		root   func(s *app.Server) error // the ancestor's guard
		method string
		body   string
		header []string
		status int // of the second request
	}{
		{"rate limit middleware", func(s *app.Server) error { return s.Register(ratelimit.Plugin(perIP)) },
			http.MethodGet, "", nil, http.StatusTooManyRequests},
		{"rate limit hook", func(s *app.Server) error { return s.Register(ratelimit.Plugin(perIP, ratelimit.AsHook(app.OnRequest))) },
			http.MethodGet, "", nil, http.StatusTooManyRequests},
		{"a middleware of the root's own", func(s *app.Server) error {
			return s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Deny") != "" {
						app.WriteError(w, r, httpx.NewError(http.StatusForbidden, "", "denied"))
						return
					}
					next.ServeHTTP(w, r)
				})
			})
		}, http.MethodGet, "", []string{"X-Deny", "1"}, http.StatusForbidden},
		{"load shedding", func(s *app.Server) error {
			return s.Register(shed.New(shed.WithSource(pressure{}), shed.MaxSchedLatency(time.Millisecond)).Plugin())
		}, http.MethodGet, "", nil, http.StatusServiceUnavailable},
		{"csrf", func(s *app.Server) error { return s.Register(csrf.Plugin()) },
			http.MethodPost, "", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"body limit", func(s *app.Server) error { return s.SetBodyLimit(4) },
			http.MethodPost, `{"name":"too long"}`, []string{"Content-Type", "application/json"}, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		for _, guardFirst := range []bool{true, false} {
			name := tt.name + ", guard registered first"
			if !guardFirst {
				name = tt.name + ", guard registered last"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := app.New(app.WithoutRequestLogging())
				if guardFirst {
					require.NoError(t, tt.root(s))
				}
				require.NoError(t, s.Register(func(s *app.Server) error {
					s.Register(cors.Plugin(cors.Origins(origin)))
					s.Get("/items", ok)
					return s.Post("/items", func(in app.Body[map[string]string]) (string, error) { return "made", nil })
				}, app.Name("api"), app.Prefix("/api")))
				if !guardFirst {
					require.NoError(t, tt.root(s))
				}
				c := start(t, s)
				send := func() answer {
					var body *strings.Reader
					if tt.body != "" {
						body = strings.NewReader(tt.body)
					}
					return c.send(tt.method, "/api/items", body, append([]string{"Origin", origin}, tt.header...)...)
				}
				if tt.status == http.StatusTooManyRequests {
					require.Equal(t, http.StatusOK, send().status)
				}
				a := send()
				require.Equal(t, tt.status, a.status, a.body)
				assert.Equal(t, origin, a.header.Get("Access-Control-Allow-Origin"), "the refusal reaches the script")
				assert.Equal(t, "Origin", a.vary())
			})
		}
	}
}

// A preflight for a route of the child is answered by its CORS policy
// before the root's limiter: a refused preflight fails the browser's
// request with a CORS error whatever its status, and a preflight costs
// no budget.
func TestPreflightIsAnsweredBeforeAnAncestorsLimiter(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithoutRequestLogging())
	s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()})))
	s.Register(func(s *app.Server) error {
		s.Register(cors.Plugin(cors.Origins(origin)))
		return s.Delete("/items/:id", ok)
	}, app.Name("api"))
	c := start(t, s)
	for range 3 {
		a := c.preflight("/items/1", origin, http.MethodDelete)
		require.Equal(t, http.StatusNoContent, a.status)
		assert.Equal(t, origin, a.header.Get("Access-Control-Allow-Origin"))
		assert.Empty(t, a.header.Get("RateLimit"), "not counted")
	}
	assert.Equal(t, http.StatusOK, c.do(http.MethodDelete, "/items/1", "Origin", origin).status, "the budget is whole")
	assert.Equal(t, http.StatusTooManyRequests, c.do(http.MethodDelete, "/items/1", "Origin", origin).status)
}

// "Vary: Origin" stays on every answer of a policy that does not allow
// every origin, whatever the handler does to Vary.
func TestVaryOriginSurvivesTheHandler(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithoutRequestLogging())
	s.Register(cors.Plugin(cors.Origins(origin)))
	s.Get("/set", func(rep *httpx.Reply) error {
		rep.Header().Set("Vary", "Accept-Encoding")
		return rep.Send("ok")
	})
	s.Get("/deleted", func(rep *httpx.Reply) error {
		rep.Header().Del("Vary")
		return rep.Send("ok")
	})
	s.Get("/raw", func(rep *httpx.Reply) error {
		w := rep.Raw()
		w.Header().Set("Vary", "Accept-Language")
		w.WriteHeader(http.StatusAccepted)
		_, err := w.Write([]byte("raw"))
		return err
	})
	s.Get("/std", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Vary"] = []string{"Cookie"}
		_, _ = w.Write([]byte("std"))
	}))
	s.Get("/star", func(rep *httpx.Reply) error {
		rep.Header().Set("Vary", "*")
		return rep.Send("ok")
	})
	c := start(t, s)
	tests := []struct{ path, vary string }{
		{"/set", "Accept-Encoding, Origin"},
		{"/deleted", "Origin"},
		{"/raw", "Accept-Language, Origin"},
		{"/std", "Cookie, Origin"},
		{"/star", "*"},
	}
	for _, tt := range tests {
		for _, from := range []string{origin, "https://other.example", ""} {
			a := c.do(http.MethodGet, tt.path, "Origin", from)
			require.Less(t, a.status, 300, tt.path)
			assert.Equal(t, tt.vary, a.vary(), "%s from %q", tt.path, from)
		}
	}
}
