package secure_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/secure"
)

func TestMain(m *testing.M) { apptest.Main(m) }

// helmetCSP is helmet v8's default policy, as helmet writes it.
const helmetCSP = "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';" +
	"frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
	"style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"

func TestDefaultCSPIsHelmets(t *testing.T) {
	t.Parallel()
	assert.Equal(t, helmetCSP, secure.DefaultCSP)
}

// helmetHeaders are the headers helmet v8 sets by default.
var helmetHeaders = map[string]string{
	"Content-Security-Policy":           helmetCSP,
	"Cross-Origin-Opener-Policy":        "same-origin",
	"Cross-Origin-Resource-Policy":      "same-origin",
	"Origin-Agent-Cluster":              "?1",
	"Referrer-Policy":                   "no-referrer",
	"Strict-Transport-Security":         "max-age=31536000; includeSubDomains",
	"X-Content-Type-Options":            "nosniff",
	"X-Dns-Prefetch-Control":            "off",
	"X-Download-Options":                "noopen",
	"X-Frame-Options":                   "SAMEORIGIN",
	"X-Permitted-Cross-Domain-Policies": "none",
	"X-Xss-Protection":                  "0",
}

func get(t *testing.T, method, url string, header ...string) (*apptest.Response, string) {
	t.Helper()
	res := apptest.Fetch(t, method, url, header...)
	return res, res.Body
}

// Every answer of the context carries the headers, whoever wrote it:
// the handler, the error handler, bearer's hook, the router's 404 and
// 405, a panic's 500, a mounted handler.
func TestEveryAnswerCarriesHelmetsDefaults(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Register(secure.Plugin()))
	s.Get("/ok", func() (string, error) { return "ok", nil })
	s.Get("/fail", func() (string, error) { return "", errors.New("db down") })
	s.Get("/teapot", func() (string, error) { return "", httpx.NewError(418, "TEA", "no coffee") })
	s.Get("/panic", func() (string, error) { panic("boom") })
	s.Mount("/std", http.NotFoundHandler())
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		return s.Get("/private", func() (string, error) { return "secret", nil })
	})
	url := apptest.Serve(t, s)

	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/ok", 200}, {"HEAD", "/ok", 200}, {"GET", "/fail", 500}, {"GET", "/teapot", 418},
		{"GET", "/panic", 500}, {"GET", "/std/x", 404}, {"GET", "/private", 401},
		{"GET", "/nowhere", 404}, {"POST", "/ok", 405}, {"OPTIONS", "/ok", 405},
	} {
		t.Run(c.method+c.path, func(t *testing.T) {
			res, _ := get(t, c.method, url+c.path)
			assert.Equal(t, c.status, res.StatusCode)
			for k, v := range helmetHeaders {
				assert.Equal(t, v, res.Header.Get(k), k)
			}
		})
	}
}

func TestHeadersAreConfigurableOrOff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []secure.Option
		want map[string]string // "" = absent
	}{
		{"a header off", []secure.Option{secure.Header("X-Frame-Options", "")},
			map[string]string{"X-Frame-Options": "", "X-Content-Type-Options": "nosniff"}},
		{"a header changed", []secure.Option{secure.Header("referrer-policy", "strict-origin-when-cross-origin")},
			map[string]string{"Referrer-Policy": "strict-origin-when-cross-origin"}},
		{"a header added", []secure.Option{secure.Header("Permissions-Policy", "camera=()")},
			map[string]string{"Permissions-Policy": "camera=()", "X-Xss-Protection": "0"}},
		{"HSTS with preload", []secure.Option{secure.Header("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload")},
			map[string]string{"Strict-Transport-Security": "max-age=63072000; includeSubDomains; preload"}},
		{"CSP off", []secure.Option{secure.CSP("")},
			map[string]string{"Content-Security-Policy": "", "X-Frame-Options": "SAMEORIGIN"}},
		{"CSP replaced", []secure.Option{secure.CSP("default-src 'none';  img-src 'self'")},
			map[string]string{"Content-Security-Policy": "default-src 'none';img-src 'self'"}},
		{"a directive changed", []secure.Option{secure.Directive("img-src", "'self'", "https://cdn.example")},
			map[string]string{"Content-Security-Policy": strings.Replace(helmetCSP, "img-src 'self' data:", "img-src 'self' https://cdn.example", 1)}},
		{"a directive added", []secure.Option{secure.Directive("connect-src", "'self'")},
			map[string]string{"Content-Security-Policy": helmetCSP + ";connect-src 'self'"}},
		{"a directive dropped", []secure.Option{secure.DropDirective("upgrade-insecure-requests")},
			map[string]string{"Content-Security-Policy": strings.TrimSuffix(helmetCSP, ";upgrade-insecure-requests")}},
		{"report only", []secure.Option{secure.ReportOnly()},
			map[string]string{"Content-Security-Policy": "", "Content-Security-Policy-Report-Only": helmetCSP}},
		{"API preset", []secure.Option{secure.API()},
			map[string]string{"Content-Security-Policy": "default-src 'none';frame-ancestors 'none'", "X-Frame-Options": "DENY",
				"Cross-Origin-Resource-Policy": "same-origin", "X-Content-Type-Options": "nosniff"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			require.NoError(t, s.Register(secure.Plugin(c.opts...)))
			s.Get("/", func() (string, error) { return "ok", nil })
			res, _ := get(t, "GET", apptest.Serve(t, s)+"/")
			for k, v := range c.want {
				if v == "" {
					assert.NotContains(t, res.Header, k)
				} else {
					assert.Equal(t, v, res.Header.Get(k), k)
				}
			}
		})
	}
}

func TestInvalidOptionsAreRefused(t *testing.T) {
	t.Parallel()
	for _, o := range []secure.Option{
		secure.Header("X Frame", "DENY"),
		secure.Header("X-Frame-Options", "DENY\r\nSet-Cookie: a=b"),
		secure.Header("Content-Security-Policy", "default-src 'none'"),
		secure.CSP("default-src 'self'\n"),
		secure.Directive("img src", "'self'"),
		secure.Directive("img-src", "'self'; script-src *"),
	} {
		s := app.New()
		err := s.Register(secure.Plugin(o))
		require.Error(t, err)
		assert.ErrorIs(t, err, secure.ErrInvalidOption)
	}
}

// What a route sets itself wins: the OpenAPI /docs page keeps its CSP.
func TestARouteKeepsTheHeadersItSets(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(secure.Plugin())
	s.Get("/docs", func(rep *httpx.Reply) error {
		rep.SetHeader("Content-Security-Policy", "default-src 'none'; script-src 'sha256-abc'")
		return rep.Type("text/html").Send("<html></html>")
	})
	s.Get("/framed", func(rep *httpx.Reply) error {
		rep.Raw().Header().Set("X-Frame-Options", "ALLOW-FROM https://a.example")
		return rep.Send("ok")
	}, app.WithHook(app.OnRequest, func(rep *httpx.Reply) { rep.SetHeader("Referrer-Policy", "origin") }))
	url := apptest.Serve(t, s)

	res, _ := get(t, "GET", url+"/docs")
	assert.Equal(t, []string{"default-src 'none'; script-src 'sha256-abc'"}, res.Header.Values("Content-Security-Policy"))
	res, _ = get(t, "GET", url+"/framed")
	assert.Equal(t, "ALLOW-FROM https://a.example", res.Header.Get("X-Frame-Options"))
	assert.Equal(t, "origin", res.Header.Get("Referrer-Policy"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
}

// An API context and an HTML context differ; a sibling without the
// plugin gets nothing, and a child's policy replaces its parent's.
func TestPoliciesArePerContext(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(secure.Plugin())
	s.Get("/page", func() (string, error) { return "<p>", nil })
	s.Register(func(s *app.Server) error {
		s.Register(secure.Plugin(secure.API(), secure.Header("Origin-Agent-Cluster", "")))
		return s.Get("/items", func() ([]int, error) { return []int{1}, nil })
	}, app.Prefix("/api"))
	bare := apptest.New(t)
	bare.Register(func(s *app.Server) error {
		s.Register(secure.Plugin())
		return s.Get("/covered", func() (string, error) { return "", nil })
	})
	bare.Get("/bare", func() (string, error) { return "", nil })

	url := apptest.Serve(t, s)
	res, _ := get(t, "GET", url+"/page")
	assert.Equal(t, helmetCSP, res.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "?1", res.Header.Get("Origin-Agent-Cluster"))
	res, _ = get(t, "GET", url+"/api/items")
	assert.Equal(t, "default-src 'none';frame-ancestors 'none'", res.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	assert.NotContains(t, res.Header, "Origin-Agent-Cluster")
	res, _ = get(t, "DELETE", url+"/api/items")
	assert.Equal(t, 405, res.StatusCode)
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))

	url = apptest.Serve(t, bare)
	res, _ = get(t, "GET", url+"/covered")
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	res, _ = get(t, "GET", url+"/bare")
	assert.NotContains(t, res.Header, "X-Content-Type-Options")
}

var nonceRE = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)

// Ported from @fastify/helmet: a nonce per request, in script-src and
// style-src, never stacked from one request to the next, and the one the
// handler gets.
func TestNoncesArePerRequest(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(secure.Plugin(
		secure.Directive("script-src", "'self'", secure.NonceSource),
		secure.Directive("style-src", "'self'", secure.NonceSource),
	))
	type page struct {
		app.In
		Nonce secure.Nonce
	}
	app.Get(s, "/", func(_ context.Context, in page) (string, error) { return string(in.Nonce), nil })
	s.Get("/ctx", func(req *httpx.Request) (string, error) { return secure.NonceOf(req.Context()), nil })
	url := apptest.Serve(t, s)

	seen := map[string]bool{}
	for _, path := range []string{"/", "/", "/ctx", "/ctx"} {
		res, body := get(t, "GET", url+path)
		csp := res.Header.Get("Content-Security-Policy")
		m := nonceRE.FindAllStringSubmatch(csp, -1)
		require.Len(t, m, 2, csp)
		assert.Equal(t, m[0][1], m[1][1])
		assert.Equal(t, m[0][1], body)
		assert.Contains(t, csp, "script-src 'self' 'nonce-"+body+"'")
		assert.Contains(t, csp, "style-src 'self' 'nonce-"+body+"'")
		assert.False(t, seen[body], "nonce reused")
		seen[body] = true
	}
}

// A route that asks for a nonce where no policy makes one fails Ready.
func TestANonceOutsideThePluginFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(secure.Plugin()) // no NonceSource: no Nonce value
	type page struct {
		app.In
		Nonce secure.Nonce
	}
	app.Get(s, "/", func(_ context.Context, in page) (string, error) { return string(in.Nonce), nil })
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "secure.Nonce")
}

// The request time-out's 503 and a body too large's 413, both Burrow's
// own answers inside the route, carry the headers too.
func TestBurrowsOwnAnswersCarryTheHeaders(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, app.WithRequestTimeout(50*time.Millisecond), app.WithMaxBodyBytes(8))
	s.Register(secure.Plugin())
	s.Get("/slow", func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	s.Post("/body", func(b app.Body[map[string]string]) (string, error) { return "", nil })
	url := apptest.Serve(t, s)
	res := apptest.Fetch(t, "GET", url+"/slow")
	assert.Equal(t, 503, res.StatusCode)
	assert.Equal(t, helmetCSP, res.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))

	req, err := http.NewRequest("POST", url+"/body", strings.NewReader(`{"a":"bbbbbbbbbbbbbbbbbb"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, 413, r.StatusCode)
	assert.Equal(t, "SAMEORIGIN", r.Header.Get("X-Frame-Options"))
}

// Off removes an ancestor's headers for a context; its siblings keep
// them.
func TestOffRemovesAnAncestorsHeaders(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(secure.Plugin(secure.Header("Permissions-Policy", "camera=()")))
	s.Register(func(s *app.Server) error {
		s.Register(secure.Off("Permissions-Policy"))
		return s.Get("/embed", func() (string, error) { return "", nil })
	})
	s.Get("/page", func() (string, error) { return "", nil })
	url := apptest.Serve(t, s)
	res := apptest.Fetch(t, "GET", url+"/embed")
	for k := range helmetHeaders {
		assert.NotContains(t, res.Header, k)
	}
	assert.NotContains(t, res.Header, "Permissions-Policy")
	res = apptest.Fetch(t, "GET", url+"/page")
	assert.Equal(t, "camera=()", res.Header.Get("Permissions-Policy"))
	assert.Equal(t, helmetCSP, res.Header.Get("Content-Security-Policy"))
}

// Ported from @fastify/helmet's route tests: a route's options over the
// context's, a route without the headers, checked at Ready.
func TestRouteOverrideAndSkip(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(secure.Plugin(secure.Header("Permissions-Policy", "camera=()")))
	s.Get("/embed", func() (string, error) { return "", nil },
		secure.Override(secure.Header("X-Frame-Options", ""), secure.Directive("frame-ancestors", "https://a.example")))
	s.Get("/raw", func() (string, error) { return "", nil }, secure.Skip())
	s.Get("/page", func() (string, error) { return "", nil })
	s.Register(func(s *app.Server) error {
		s.Register(secure.Plugin(secure.API()))
		s.Get("/api/raw", func() (string, error) { return "", nil }, secure.Skip())
		s.Get("/api/nonce", func(req *httpx.Request) (string, error) { return secure.NonceOf(req.Context()), nil },
			secure.Override(secure.Directive("script-src", secure.NonceSource)))
		return s.Get("/api/items", func() (string, error) { return "", nil })
	})
	url := apptest.Serve(t, s)

	res := apptest.Fetch(t, "GET", url+"/embed")
	assert.NotContains(t, res.Header, "X-Frame-Options")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors https://a.example;")
	assert.Equal(t, "camera=()", res.Header.Get("Permissions-Policy"), "the context's options stay")
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	for _, p := range []string{"/raw", "/api/raw"} {
		res = apptest.Fetch(t, "GET", url+p)
		for k := range helmetHeaders {
			assert.NotContains(t, res.Header, k, p)
		}
		assert.NotContains(t, res.Header, "Permissions-Policy", p)
	}
	res = apptest.Fetch(t, "POST", url+"/raw")
	assert.Equal(t, 405, res.StatusCode)
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), "a 405 is the context's")
	res = apptest.Fetch(t, "GET", url+"/page")
	assert.Equal(t, "SAMEORIGIN", res.Header.Get("X-Frame-Options"))
	res = apptest.Fetch(t, "GET", url+"/api/items")
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	res = apptest.Fetch(t, "GET", url+"/api/nonce")
	assert.Equal(t, "default-src 'none';frame-ancestors 'none';script-src 'nonce-"+res.Body+"'", res.Header.Get("Content-Security-Policy"))
	assert.Len(t, res.Body, 22)

	assert.Contains(t, s.PrintRoutes(), "*secure.Route skip")
}

func TestRouteSettingsAreCheckedAtReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(secure.Plugin())
	s.Get("/", func() (string, error) { return "", nil }, secure.Override(secure.Header("X Y", "z")))
	assert.ErrorIs(t, s.Ready(), secure.ErrInvalidOption)

	s = app.New()
	s.Get("/", func() (string, error) { return "", nil }, secure.Skip()) // no plugin to read it
	assert.ErrorIs(t, s.Ready(), app.ErrUnreadConfig)
}
