package cors_test

// Cases ported from @fastify/cors's test/cors.test.js and
// test/preflight.test.js, adapted to Burrow: origins are full origins
// ("https://example.com", as browsers send them), a policy must name its
// origins, and an origin not allowed is never echoed.

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
)

// server is a root with the plugin and GET / answering "ok".
func server(t *testing.T, opts ...cors.Option) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(opts...)))
	require.NoError(t, s.Get("/", ok))
	return s
}

func TestAddsCORSHeaders(t *testing.T) {
	t.Parallel()
	c := start(t, server(t, cors.Origins("*")))
	a := c.do("GET", "/")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "ok", a.body)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": "*"}, a.cors(), "any origin: * even without an Origin header")
	assert.Empty(t, a.vary(), "* does not vary with the origin")
}

func TestCustomValues(t *testing.T) {
	t.Parallel()
	c := start(t, server(t, cors.Origins("https://example.com"), cors.Methods("GET"), cors.Credentials(),
		cors.ExposeHeaders("foo", "bar"), cors.AllowHeaders("baz", "woo"), cors.MaxAge(123*time.Second)))

	a := c.preflight("/", "https://example.com", "GET")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.body)
	assert.Equal(t, map[string]string{
		"Access-Control-Allow-Origin":      "https://example.com",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "GET",
		"Access-Control-Allow-Headers":     "Baz, Woo",
		"Access-Control-Max-Age":           "123",
	}, a.cors())
	assert.Empty(t, a.header.Get("Content-Length"), "a 204 has no length")

	a = c.do("GET", "/", "Origin", "https://example.com")
	assert.Equal(t, "ok", a.body)
	assert.Equal(t, map[string]string{
		"Access-Control-Allow-Origin":      "https://example.com",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Expose-Headers":    "Foo, Bar",
	}, a.cors())
	assert.Equal(t, "Origin", a.vary())
}

func TestOrigins(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		opt     cors.Option
		origin  string
		allowed bool
	}{
		{"one origin", cors.Origins("https://other.io"), "https://other.io", true},
		{"one origin, another asks", cors.Origins("https://other.io"), "https://example.com", false},
		{"a list", cors.Origins("https://other.io", "https://example.com"), "https://example.com", true},
		{"a list, another asks", cors.Origins("https://other.io", "https://example.com"), "https://foo.com", false},
		{"configured in upper case", cors.Origins("HTTPS://Example.COM"), "https://example.com", true},
		{"a port is part of the origin", cors.Origins("http://localhost:5173"), "http://localhost:5174", false},
		{"* among others is any", cors.Origins("https://other.io", "*"), "https://foo.com", true},
		{"pattern", cors.OriginPattern(`https://(www\.)?(example|other)\.com`), "https://www.example.com", true},
		{"pattern matches whole origins", cors.OriginPattern(`https://(www\.)?(example|other)\.com`), "https://www.example.com.evil.io", false},
		{"pattern: a prefix is not enough", cors.OriginPattern(`https://example\.com`), "https://evil.io/https://example.com", false},
		{"function", cors.OriginFunc(func(o string) bool { return o == "https://fn.example" }), "https://fn.example", true},
		{"function refuses", cors.OriginFunc(func(o string) bool { return o == "https://fn.example" }), "https://example.com", false},
		{"no origin header", cors.Origins("https://other.io"), "", false},
		{"null is never allowed by a list", cors.Origins("https://other.io"), "null", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := start(t, server(t, tc.opt))
			var h []string
			if tc.origin != "" {
				h = []string{"Origin", tc.origin}
			}
			for range 2 { // a pattern gives the same answer every time
				a := c.do("GET", "/", h...)
				assert.Equal(t, "ok", a.body)
				want := map[string]string{}
				if tc.allowed {
					want["Access-Control-Allow-Origin"] = tc.origin
					if tc.name == "* among others is any" {
						want["Access-Control-Allow-Origin"] = "*"
					}
				}
				assert.Equal(t, want, a.cors())
				if tc.name != "* among others is any" {
					assert.Equal(t, "Origin", a.vary(), "allowed or not, the answer varies with the origin")
				}
			}
		})
	}
}

func TestVaryKeepsWhatIsThere(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Use(func(next http.Handler) http.Handler { // outside the plugin, outermost as it is
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Vary", "foo, bar")
			next.ServeHTTP(w, r)
		})
	}, app.Outermost()))
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("https://example.com"))))
	require.NoError(t, s.Get("/", func(rep *httpx.Reply) error {
		rep.Header().Add("Vary", "Accept-Encoding")
		return rep.Send("ok")
	}))
	require.NoError(t, s.Get("/star", func(rep *httpx.Reply) error {
		rep.Header().Set("Vary", "*")
		return rep.Send("ok")
	}))
	c := start(t, s)
	assert.Equal(t, "foo, bar, Origin, Accept-Encoding", c.do("GET", "/").vary())
	assert.Equal(t, "foo, bar, Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
		c.preflight("/", "https://example.com", "GET").vary())
	assert.Equal(t, "*", c.do("GET", "/star").vary())
}

func TestPreflight(t *testing.T) {
	t.Parallel()
	const vary = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
	c := start(t, server(t, cors.Origins("*")))

	a := c.preflight("/", "https://example.com", "GET")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.body)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET"}, a.cors())
	assert.Equal(t, vary, a.vary())

	a = c.preflight("/", "https://example.com", "GET", "x-requested-with", "content-type")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Equal(t, "x-requested-with,content-type", a.header.Get("Access-Control-Allow-Headers"), "the asked headers, by default")

	a = c.do("OPTIONS", "/", "Origin", "https://example.com", "Access-Control-Request-Method", "GET",
		"Access-Control-Request-Headers", "x-ok", "Access-Control-Request-Headers", "bad header")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.header.Get("Access-Control-Allow-Headers"), "what is not a header list is not echoed")

	a = c.preflight("/", "https://example.com", "HEAD")
	assert.Equal(t, "HEAD", a.header.Get("Access-Control-Allow-Methods"), "a GET route serves HEAD")
}

func TestPreflightSuccessStatus(t *testing.T) {
	t.Parallel()
	c := start(t, server(t, cors.Origins("*"), cors.SuccessStatus(http.StatusOK)))
	a := c.preflight("/", "https://example.com", "GET")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Empty(t, a.body)
	assert.Equal(t, "0", a.header.Get("Content-Length"), "Safari waits for a body without it")
	assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"))
}

func TestStrictPreflight(t *testing.T) {
	t.Parallel()
	c := start(t, server(t, cors.Origins("*")))
	a := c.preflight("/", "", "GET")
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Equal(t, `{"statusCode":400,"code":"FST_CORS_INVALID_PREFLIGHT","error":"Bad Request","message":"Invalid Preflight Request"}`, a.body, "byte for byte")
	assert.Equal(t, "application/json; charset=utf-8", a.header.Get("Content-Type"))
	assert.Empty(t, a.cors())
	assert.Contains(t, a.vary(), "Origin")

	a = c.do("OPTIONS", "/", "Origin", "https://example.com")
	assert.Equal(t, http.StatusMethodNotAllowed, a.status, "no requested method: an OPTIONS request, which / does not serve")
	assert.Equal(t, "GET, HEAD", a.header.Get("Allow"))

	lax := start(t, server(t, cors.Origins("*"), cors.LaxPreflight()))
	a = lax.preflight("/", "", "GET")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"))

	listed := start(t, server(t, cors.Origins("https://example.com"), cors.LaxPreflight()))
	a = listed.preflight("/", "", "GET")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.cors(), "no origin is not a listed origin")
}

func TestPreflightMethods(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("https://example.com"), cors.Methods("GET", "PATCH"))))
	require.NoError(t, s.Get("/", ok))
	require.NoError(t, s.Patch("/", ok))
	require.NoError(t, s.Delete("/", ok))
	c := start(t, s)

	a := c.preflight("/", "https://example.com", "PATCH")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Equal(t, "PATCH", a.header.Get("Access-Control-Allow-Methods"))

	a = c.preflight("/", "https://example.com", "DELETE")
	assert.Equal(t, http.StatusNoContent, a.status, "served, but not allowed: answered, and refused by the browser")
	assert.Empty(t, a.cors())

	a = c.preflight("/", "https://example.com", "PUT")
	assert.Equal(t, http.StatusMethodNotAllowed, a.status, "a method the path does not serve is not a preflight to answer")
	assert.Empty(t, a.cors())
	assert.Equal(t, "DELETE, GET, HEAD, PATCH", a.header.Get("Allow"))
}

func TestPreflightDisallowedOriginGetsNoCORSHeader(t *testing.T) {
	t.Parallel()
	c := start(t, server(t, cors.Origins("https://example.com"), cors.Credentials(), cors.MaxAge(time.Hour), cors.AllowHeaders("x-a")))
	a := c.preflight("/", "https://evil.io", "GET", "x-a")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.cors())
	assert.Equal(t, "Origin, Access-Control-Request-Method, Access-Control-Request-Headers", a.vary())
}

func TestPreflightOnAPrefixedContext(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Get("/", ok))
	require.NoError(t, s.Register(func(s *app.Server) error {
		if err := s.Register(cors.Plugin(cors.Origins("*"))); err != nil {
			return err
		}
		return s.Get("/", ok)
	}, app.Prefix("/subsystem")))
	c := start(t, s)
	a := c.preflight("/", "https://example.com", "GET")
	assert.Equal(t, http.StatusMethodNotAllowed, a.status, "the root has no plugin")
	assert.Empty(t, a.cors())
	for _, p := range []string{"/subsystem", "/subsystem/"} {
		a = c.preflight(p, "https://example.com", "GET")
		assert.Equal(t, http.StatusNoContent, a.status, p)
		assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"), p)
	}
}

func TestAnOptionsRouteAnswersItself(t *testing.T) {
	t.Parallel()
	s := server(t, cors.Origins("*"))
	require.NoError(t, s.Options("/", func() (string, error) { return "mine", nil }))
	c := start(t, s)
	a := c.preflight("/", "https://example.com", "GET")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "mine", a.body)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": "*"}, a.cors(), "the headers of any answer, no preflight's")
}

func TestRouteOff(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("*"))))
	require.NoError(t, s.Get("/cors-enabled", ok))
	require.NoError(t, s.Get("/cors-disabled", ok, cors.Off()))
	c := start(t, s)
	assert.Equal(t, "*", c.do("GET", "/cors-enabled", "Origin", "https://example.com").header.Get("Access-Control-Allow-Origin"))
	a := c.do("GET", "/cors-disabled", "Origin", "https://example.com")
	assert.Equal(t, "ok", a.body)
	assert.Empty(t, a.cors())
	assert.Empty(t, a.vary())
	a = c.preflight("/cors-disabled", "https://example.com", "GET")
	assert.Equal(t, http.StatusMethodNotAllowed, a.status, "as without the plugin")
	assert.Empty(t, a.cors())
}

func TestRouteOverride(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("https://default-example.com"), cors.ExposeHeaders("x-total"))))
	require.NoError(t, s.Get("/cors-enabled", ok))
	require.NoError(t, s.Get("/cors-allow-all", ok, cors.Override(cors.Origins("*"))))
	c := start(t, s)

	a := c.do("GET", "/cors-enabled", "Origin", "https://default-example.com")
	assert.Equal(t, "https://default-example.com", a.header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, c.do("GET", "/cors-enabled", "Origin", "https://example.com").cors())

	a = c.do("GET", "/cors-allow-all", "Origin", "https://example.com")
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "X-Total"}, a.cors(),
		"the override is merged over the context's options")
	a = c.preflight("/cors-allow-all", "https://example.com", "GET")
	assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"))
}

func TestStreamedAnswersCarryTheHeaders(t *testing.T) {
	t.Parallel()
	s := server(t, cors.Origins("https://example.com"))
	require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
		return rep.Stream(strings.NewReader("streamed"))
	}))
	require.NoError(t, s.Get("/file", func(rep *httpx.Reply) error {
		return rep.ServeContent("a.txt", time.Time{}, strings.NewReader("file body"))
	}))
	require.NoError(t, s.Get("/events", func(rep *httpx.Reply) error {
		es, err := rep.SSE()
		if err != nil {
			return err
		}
		return es.Send(httpx.Event{Data: "one"})
	}))
	c := start(t, s)
	for path, body := range map[string]string{"/stream": "streamed", "/file": "file body", "/events": "data: one\n\n"} {
		a := c.do("GET", path, "Origin", "https://example.com")
		assert.Equal(t, http.StatusOK, a.status, path)
		assert.Equal(t, body, a.body, path)
		assert.Equal(t, "https://example.com", a.header.Get("Access-Control-Allow-Origin"), path)
		assert.Equal(t, "Origin", a.vary(), path)
	}
}

func TestPreflightOfAMountEchoesOnlyAMethod(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("*"))))
	require.NoError(t, s.Mount("/m", http.NotFoundHandler()))
	c := start(t, s)
	a := c.preflight("/m/x", "https://example.com", "GET, POST")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.cors(), "a list is not a method: nothing is echoed")
	a = c.do("OPTIONS", "/m/x", "Origin", "https://example.com", "Access-Control-Request-Method", "")
	assert.Equal(t, http.StatusNotFound, a.status, "an empty requested method is no preflight: the mount answers")
}

// @fastify/cors answers every OPTIONS request 204 through its OPTIONS *
// route, known path or not. Burrow routes the preflight: a path no route
// has is the not-found answer, with no CORS header, under a prefix too.
func TestPreflightForAnUnknownPathIsNotFound(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("*"))))
	require.NoError(t, s.Register(func(s *app.Server) error { return s.Get("/", ok) }, app.Prefix("/prefix")))
	c := start(t, s)
	for _, p := range []string{"/", "/unknown", "/prefixfoo", "/prefix/foo"} {
		a := c.preflight(p, "https://example.com", "GET")
		assert.Equal(t, http.StatusNotFound, a.status, p)
		assert.Empty(t, a.cors(), p)
	}
	for _, p := range []string{"/prefix", "/prefix/"} {
		a := c.preflight(p, "https://example.com", "GET")
		assert.Equal(t, http.StatusNoContent, a.status, p)
		assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"), p)
	}
	a := c.do("GET", "/unknown", "Origin", "https://example.com")
	assert.Equal(t, http.StatusNotFound, a.status)
	assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"), "an actual request's 404 carries the headers")
}

func TestNullOriginIsNeverAllowedByAPatternOrAFunction(t *testing.T) {
	t.Parallel()
	// Sandboxed frames and local files send "Origin: null": any page can
	// make itself one, so allowing it, with credentials above all, lets
	// any site read the answers.
	for name, opt := range map[string]cors.Option{
		"pattern":  cors.OriginPattern(`.*`),
		"function": cors.OriginFunc(func(string) bool { return true }),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := start(t, server(t, opt, cors.Credentials()))
			a := c.do("GET", "/", "Origin", "null")
			assert.Equal(t, http.StatusOK, a.status)
			assert.Empty(t, a.cors())
			a = c.preflight("/", "null", "GET")
			assert.Empty(t, a.cors())
			a = c.do("GET", "/", "Origin", "https://example.com")
			assert.Equal(t, "https://example.com", a.header.Get("Access-Control-Allow-Origin"), "other origins still are")
		})
	}
}

func TestInvalidPreflightFollowsProblemDetails(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithProblemDetails(), app.WithoutRequestLogging())
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("*"))))
	require.NoError(t, s.Get("/", ok))
	a := start(t, s).preflight("/", "", "GET")
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Equal(t, httpx.ContentTypeProblem, a.header.Get("Content-Type"))
	assert.JSONEq(t, `{"type":"about:blank","title":"Bad Request","status":400,"code":"FST_CORS_INVALID_PREFLIGHT","detail":"Invalid Preflight Request","instance":"/"}`, a.body)
}
