package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// The contracts where Burrow and Fastify could differ, each pinned to the
// behaviour the README states.

func TestChildCannotRedeclareAParentsRequestDecorator(t *testing.T) {
	t.Parallel()
	for _, value := range []any{"root", (func() string)(nil)} { // a function decorator is declared nil: values must share nothing
		s := app.New()
		require.NoError(t, s.DecorateRequest("x", value))
		var redeclared error
		s.Register(func(c *app.Server) error {
			redeclared = c.DecorateRequest("x", value)
			return nil
		}, app.Name("child"))
		err := s.Ready()
		require.ErrorIs(t, redeclared, scope.ErrDuplicate, "a value or a function alike: %T", value)
		require.ErrorIs(t, err, scope.ErrDuplicate, "and Ready reports it")
		assert.Contains(t, err.Error(), `request decorator "x" is already declared in ancestor context root and visible from root > child`)
	}
}

func TestHasPluginInsideAPlugin(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	s := app.New()
	s.Register(func(c *app.Server) error {
		c.Register(noop, app.Name("sibling"))
		return c.Register(func(p *app.Server) error {
			for _, name := range []string{"parent", "sibling", "self", "later", "cousin"} {
				seen[name] = p.HasPlugin(name)
			}
			return nil
		}, app.Name("self"))
	}, app.Name("parent"))
	s.Register(func(o *app.Server) error { return o.Register(noop, app.Name("cousin")) }, app.Name("other"))
	s.Register(noop, app.Name("later"))
	require.NoError(t, s.Ready())
	assert.Equal(t, map[string]bool{
		"parent":  true,  // registered in an ancestor (root): what it declares is visible here
		"sibling": true,  // registered earlier by this plugin's parent context
		"self":    true,  // this plugin, registered by its parent
		"later":   false, // registered in the root, but not loaded yet
		"cousin":  false, // registered in another branch
	}, seen)
}

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
