package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// cookieGuard is a plugin of the tests' that authenticates by a cookie
// and says so.
func cookieGuard(s *app.Server) error {
	if err := s.DeclareGuard(app.Guard{Kind: app.GuardAuth, Name: "session", Cookie: true}); err != nil {
		return err
	}
	return s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if c, err := req.Raw().Cookie("sid"); err != nil || c.Value != "good" {
			return httpx.NewError(http.StatusUnauthorized, "", "log in")
		}
		return nil
	})
}

// csrfGuard refuses cross-site unsafe requests, and says so.
func csrfGuard(s *app.Server) error {
	if err := s.DeclareGuard(app.Guard{Kind: app.GuardCSRF}); err != nil {
		return err
	}
	cop := http.NewCrossOriginProtection()
	return s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if cop.Check(req.Raw()) != nil {
			return httpx.NewError(http.StatusForbidden, "", "cross-site")
		}
		return nil
	})
}

func ok200() (string, error) { return "ok", nil }

// guardedServer has a root with a public route, and an api context
// under the two policies; without is the guards the api leaves out.
func guardedServer(t *testing.T, without ...string) *app.Server {
	s := apptest.New(t)
	require.NoError(t, s.Get("/healthz", ok200))
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Policy(app.RequireAuth(), app.RequireCSRF())
		for name, g := range map[string]func(*app.Server) error{"auth": cookieGuard, "csrf": csrfGuard} {
			if !contains(without, name) {
				s.Register(app.Wrap(g, app.Name(name)))
			}
		}
		s.Post("/login", ok200, app.Public())
		s.Get("/todos", ok200)
		return s.Post("/todos", ok200)
	}, app.Name("api")))
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestGuardsAreComputedPerRouteAndServed(t *testing.T) {
	t.Parallel()
	s := guardedServer(t)
	base := apptest.Serve(t, s)
	got := map[string]app.RouteGuards{}
	for _, r := range s.Routes() {
		got[r.Method+" "+r.Path] = r.Guards
	}
	assert.Equal(t, app.RouteGuards{Auth: []string{}, RateLimit: []string{}}, got["GET /healthz"])
	assert.Equal(t, app.RouteGuards{Auth: []string{"session"}, Cookie: true, RateLimit: []string{}}, got["GET /todos"],
		"a CSRF guard never covers a GET")
	assert.Equal(t, app.RouteGuards{Auth: []string{"session"}, Cookie: true, CSRF: true, RateLimit: []string{}}, got["POST /todos"])

	// What the guards say is what the server does.
	assert.Equal(t, 401, apptest.Fetch(t, "GET", base+"/todos").StatusCode)
	assert.Equal(t, 200, apptest.Fetch(t, "GET", base+"/todos", "Cookie", "sid=good", "Sec-Fetch-Site", "cross-site").StatusCode)
	assert.Equal(t, 403, apptest.Fetch(t, "POST", base+"/todos", "Cookie", "sid=good", "Sec-Fetch-Site", "cross-site").StatusCode)
	assert.Equal(t, 200, apptest.Fetch(t, "GET", base+"/healthz").StatusCode)
}

func TestPoliciesFailReadyNamingTheRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		without []string
		message string
	}{
		{[]string{"auth"}, "route GET /todos (root > api) requires no authentication"},
		{[]string{"csrf"}, "route POST /login (root > api) can be authenticated by a cookie but does not refuse cross-site requests"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.without), func(t *testing.T) {
			t.Parallel()
			err := guardedServer(t, tt.without...).Ready()
			require.ErrorIs(t, err, app.ErrPolicy)
			assert.ErrorContains(t, err, tt.message)
			assert.ErrorContains(t, err, "(a policy of root > api)")
			var re *app.RouteError
			assert.True(t, errors.As(err, &re))
		})
	}
}

func TestAPolicyIsAnyFunction(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Policy(func(r app.RouteInfo) error {
		if len(r.Guards.RateLimit) == 0 {
			return errors.New("is counted by no rate limit")
		}
		return nil
	})
	require.NoError(t, s.Get("/x", ok200))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrPolicy)
	assert.EqualError(t, err, "route GET /x (root) is counted by no rate limit (a policy of root)")
}

func TestUnguardTakesARouteOutOfAGuard(t *testing.T) {
	t.Parallel()
	limit := app.Guard{Kind: app.GuardRateLimit, Name: "ip"}
	s := apptest.New(t)
	require.NoError(t, s.DeclareGuard(limit))
	require.NoError(t, s.DeclareGuard(limit), "the same guard twice is one")
	require.NoError(t, s.OnRoute(func(spec *app.RouteSpec) error {
		if spec.Path == "/free" {
			app.Unguard(spec, limit)
		}
		return nil
	}))
	require.NoError(t, s.Get("/free", ok200))
	require.NoError(t, s.Get("/counted", ok200))
	require.NoError(t, s.Ready())

	var routes []struct {
		Method string          `json:"method"`
		Path   string          `json:"path"`
		Guards json.RawMessage `json:"guards"`
	}
	require.NoError(t, json.Unmarshal([]byte(s.PrintRoutes(app.AsJSON())), &routes))
	require.Len(t, routes, 2, "HEAD twins are not listed")
	assert.JSONEq(t, `{"auth":[],"csrf":false,"rateLimit":[],"cors":false}`, string(routes[0].Guards), "arrays are never null")
	assert.JSONEq(t, `{"auth":[],"csrf":false,"rateLimit":["ip"],"cors":false}`, string(routes[1].Guards))
	assert.Contains(t, s.PrintRoutes(), "counted (GET, HEAD) root\n│     • guards: no auth, rate limit ip\n")
	assert.Contains(t, s.PrintRoutes(), "└── free (GET, HEAD) root\n", "a route without guards has no line of them")
}

func TestDeclareGuardRefusesAGuardItCannotDescribe(t *testing.T) {
	t.Parallel()
	for _, g := range []app.Guard{
		{},
		{Kind: app.GuardAuth},
		{Kind: app.GuardAuth, Name: "a b"},
		{Kind: app.GuardCSRF, Name: "x"},
		{Kind: app.GuardCORS, Cookie: true},
	} {
		err := app.New().DeclareGuard(g)
		assert.ErrorIs(t, err, app.ErrInvalidGuard, "%+v", g)
	}
}
