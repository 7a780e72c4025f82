package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func TestPrefixesAndParams(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(v1 *app.Server) error {
		v1.Get("/", func() (string, error) { return "index", nil })
		v1.Get("/users/:id", func(req *httpx.Request) (any, error) { return req.Param("id"), nil })
		return v1.Register(func(admin *app.Server) error {
			return admin.Get("/files/*", func(req *httpx.Request) (any, error) { return req.Param("*"), nil })
		}, app.Prefix("admin"))
	}, app.Prefix("/v1/"))
	tests := []struct{ path, body string }{
		{"/v1", "index"},
		{"/v1/", "index"},
		{"/v1/users/42", "42"},
		{"/v1/users/a%2Fb", "a/b"},
		{"/v1/admin/files/a/b.txt", "a/b.txt"},
		{"/v1/admin/files/", ""},
	}
	for _, tt := range tests {
		status, body, _ := do(t, s, "GET", tt.path)
		assert.Equal(t, http.StatusOK, status, tt.path)
		assert.Equal(t, tt.body, body, tt.path)
	}
	status, _, _ := do(t, s, "GET", "/users/42")
	assert.Equal(t, http.StatusNotFound, status, "routes are prefixed")
	status, _, _ = do(t, s, "GET", "/v1/users/"+strings.Repeat("x", 101))
	assert.Equal(t, http.StatusNotFound, status, "a parameter over the length limit does not match")
}

// TestRouteMethodIsAnUpperCaseToken: one rule for a method, RFC 9110's
// token starting with an upper-case letter and holding no lower-case one,
// whether Route is given it or an OnRoute hook sets it (which failed
// later, in the router's words, or not at all).
func TestRouteMethodIsAnUpperCaseToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		ok     bool
	}{
		{"GET", true}, {"PURGE", true}, {"M-SEARCH", true}, {"BASELINE-CONTROL", true}, {"X_1.2", true},
		{httpx.AnyMethod, true},
		{"", false}, {"get", false}, {"Get", false}, {"GET,POST", false}, {"(GET)", false}, {"G ET", false},
		{"GÉT", false}, {"123", false}, {"-GET", false}, {"GET\x00", false}, {"GET\n", false}, {"GET/1", false},
		{"**", false},
	} {
		t.Run(fmt.Sprintf("%q", tt.method), func(t *testing.T) {
			t.Parallel()
			noop := func() {}
			err := app.New().Route(tt.method, "/", noop)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				require.ErrorIs(t, err, httpx.ErrInvalidMethod)
				assert.EqualError(t, err, fmt.Sprintf("invalid method %q in root: a method is an upper-case token", tt.method))
			}

			s := app.New()
			require.NoError(t, s.OnRoute(func(ro *app.RouteSpec) error { ro.Method = tt.method; return nil }))
			require.NoError(t, s.Post("/", noop))
			err = s.Ready()
			if tt.ok || tt.method == "" { // an empty one drops the route
				assert.NoError(t, err)
			} else {
				require.ErrorIs(t, err, httpx.ErrInvalidMethod)
				assert.EqualError(t, err, fmt.Sprintf("route POST / (root) was given method %q by an onRoute hook: a method is an upper-case token",
					tt.method))
			}
		})
	}
}

func TestDuplicateRouteAcrossContextsFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	h := func() error { return nil }
	s.Register(func(c *app.Server) error { return c.Get("/same", h) }, app.Name("a"))
	s.Register(func(c *app.Server) error { return c.Get("/same", h) }, app.Name("b"))
	err := s.Ready()
	require.ErrorIs(t, err, httpx.ErrDuplicateRoute)
	assert.Contains(t, err.Error(), "root > b")
}

func TestExplicitHeadRouteWinsOverTwin(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/r", func() (string, error) { return "get", nil })
	s.Head("/r", func(rep *httpx.Reply) error { rep.SetHeader("X-Head", "1"); return rep.Send(nil) })
	_, _, h := do(t, s, "HEAD", "/r")
	assert.Equal(t, "1", h.Get("X-Head"))
}

// The contracts where Burrow and Fastify could differ, each pinned to the
// behaviour the README states.

func TestRoutePathsMustStartWithASlash(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"", "/api"} {
		s := app.New()
		var err error
		s.Register(func(c *app.Server) error {
			err = c.Get("users", func() {})
			return nil
		}, app.Prefix(prefix))
		assert.ErrorIs(t, s.Ready(), httpx.ErrInvalidPath, "prefix %q", prefix)
		require.ErrorIs(t, err, httpx.ErrInvalidPath)
		assert.Contains(t, err.Error(), `"users"`)
	}
}

func TestPrefixedSlashRouteAnswersWithAndWithoutTheSlash(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"/v1", "/v1/", "v1"} {
		s := app.New()
		s.Register(func(c *app.Server) error {
			return c.Get("/", func() (string, error) { return "index", nil })
		}, app.Prefix(prefix))
		for _, target := range []string{"/v1", "/v1/"} {
			status, body, _ := do(t, s, "GET", target)
			assert.Equal(t, http.StatusOK, status, "Prefix(%q), GET %s", prefix, target)
			assert.Equal(t, "index", body)
		}
	}
}

func TestPrefixedSlashRouteRunsOnRouteOnce(t *testing.T) {
	t.Parallel()
	var seen []string
	s := app.New()
	s.OnRoute(func(ro *app.RouteSpec) error {
		seen = append(seen, ro.Method+" "+ro.Path)
		if ro.Method == http.MethodGet {
			h := ro.Handler.(func() (string, error))
			ro.Handler = func() (string, error) { v, err := h(); return "patched " + v, err }
		}
		return nil
	})
	s.Register(func(c *app.Server) error {
		return c.Get("/", func() (string, error) { return "index", nil })
	}, app.Prefix("/v1"))
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{"GET /v1", "HEAD /v1"}, seen, "one route, one OnRoute call per method")
	for _, target := range []string{"/v1", "/v1/"} {
		status, body, _ := do(t, s, "GET", target)
		assert.Equal(t, http.StatusOK, status, target)
		assert.Equal(t, "patched index", body, target)
		status, _, _ = do(t, s, "HEAD", target)
		assert.Equal(t, http.StatusOK, status, "HEAD "+target)
	}
	assert.Equal(t, "/\n└── v1 (GET, HEAD) root > plugin-0\n    └──  (GET, HEAD) root > plugin-0\n", s.PrintRoutes(),
		"both paths are routes")
}

func TestOnRouteMovingAPrefixedSlashRouteMovesItAlone(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.OnRoute(func(ro *app.RouteSpec) error { ro.Path = "/moved"; return nil })
	s.Register(func(c *app.Server) error {
		return c.Get("/", func() (string, error) { return "index", nil })
	}, app.Prefix("/v1"))
	for target, want := range map[string]int{"/moved": 200, "/v1": 404, "/v1/": 404, "/moved/": 404} {
		status, _, _ := do(t, s, "GET", target)
		assert.Equal(t, want, status, target)
	}
}
