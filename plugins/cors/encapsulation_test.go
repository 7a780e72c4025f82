package cors_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
)

const (
	public = "https://public.example"
	admin  = "https://admin.example"
)

// siblings is a server with one path, /items/:id, served by two sibling
// contexts with two policies: reader (GET, any listed public origin) and
// writer (PATCH and DELETE, the admin origin only, behind bearer-auth),
// and an unguarded root with a policy of its own.
func siblings(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.Register(func(s *app.Server) error {
		if err := s.Register(cors.Plugin(cors.Origins(public, admin), cors.ExposeHeaders("x-total"))); err != nil {
			return err
		}
		return s.Get("/items/:id", ok)
	}, app.Name("reader")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		if err := s.Register(cors.Plugin(cors.Origins(admin), cors.Credentials(), cors.MaxAge(10*time.Minute))); err != nil {
			return err
		}
		if err := s.Register(bearer.Plugin(bearer.Keys("secret"))); err != nil {
			return err
		}
		if err := s.Patch("/items/:id", ok); err != nil {
			return err
		}
		if err := s.Delete("/items/:id", ok); err != nil {
			return err
		}
		return s.Post("/fail", func() (string, error) { return "", errors.New("database down") })
	}, app.Name("writer")))
	return s
}

func TestSiblingPoliciesOnOnePath(t *testing.T) {
	t.Parallel()
	c := start(t, siblings(t))
	cases := []struct {
		name, origin, method string
		status               int
		want                 map[string]string
	}{
		{"the writer's method, judged by the writer, without a token", admin, "PATCH", 204, map[string]string{
			"Access-Control-Allow-Origin": admin, "Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods": "PATCH", "Access-Control-Allow-Headers": "authorization,content-type",
			"Access-Control-Max-Age": "600"}},
		{"the reader allows the public origin, the writer does not", public, "PATCH", 204, map[string]string{}},
		{"the reader's method, judged by the reader", public, "GET", 204, map[string]string{
			"Access-Control-Allow-Origin": public, "Access-Control-Allow-Methods": "GET",
			"Access-Control-Allow-Headers": "authorization,content-type"}},
		{"a method nobody serves: 405, nothing listed", admin, "PUT", 405, map[string]string{}},
		{"an origin nobody allows", "https://evil.example", "DELETE", 204, map[string]string{}},
	}
	for _, tc := range cases {
		a := c.preflight("/items/1", tc.origin, tc.method, "authorization", "content-type")
		assert.Equal(t, tc.status, a.status, tc.name)
		assert.Equal(t, tc.want, a.cors(), tc.name)
		assert.NotContains(t, a.header, "Www-Authenticate", "%s: no auth hook saw it", tc.name)
	}
	a := c.preflight("/items/1", admin, "PUT")
	assert.Equal(t, "DELETE, GET, HEAD, PATCH", a.header.Get("Allow"))
	assert.NotContains(t, a.header.Get("Access-Control-Allow-Methods"), "PUT")

	a = c.do("PATCH", "/items/1", "Origin", admin, "Authorization", "Bearer secret")
	assert.Equal(t, 200, a.status)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": admin, "Access-Control-Allow-Credentials": "true"}, a.cors())
	a = c.do("GET", "/items/1", "Origin", public)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": public, "Access-Control-Expose-Headers": "X-Total"}, a.cors())
	assert.Empty(t, c.do("PATCH", "/items/1", "Origin", public, "Authorization", "Bearer secret").cors(),
		"the writer's policy does not allow the public origin")
}

func TestErrorsCarryTheHeadersForAllowedOrigins(t *testing.T) {
	t.Parallel()
	s := siblings(t)
	require.NoError(t, s.Register(cors.Plugin(cors.Origins(admin)))) // the root's, for 404s
	c := start(t, s)
	cases := []struct {
		name, method, path string
		header             []string
		status             int
	}{
		{"401 from the auth hook", "PATCH", "/items/1", nil, 401},
		{"401 for a wrong key", "DELETE", "/items/1", []string{"Authorization", "Bearer nope"}, 401},
		{"404", "GET", "/nowhere", nil, 404},
		{"405", "PUT", "/items/1", nil, 405},
		{"500", "POST", "/fail", []string{"Authorization", "Bearer secret"}, 500},
	}
	for _, tc := range cases {
		a := c.do(tc.method, tc.path, append([]string{"Origin", admin}, tc.header...)...)
		assert.Equal(t, tc.status, a.status, tc.name)
		assert.Equal(t, admin, a.header.Get("Access-Control-Allow-Origin"), tc.name)
		assert.Contains(t, a.vary(), "Origin", tc.name)
		assert.True(t, strings.HasPrefix(a.body, "{"), "%s: Burrow's JSON error body: %s", tc.name, a.body)

		a = c.do(tc.method, tc.path, append([]string{"Origin", "https://evil.example"}, tc.header...)...)
		assert.Equal(t, tc.status, a.status, tc.name)
		assert.Empty(t, a.cors(), "%s: a disallowed origin gets no Access-Control-* header", tc.name)
	}
}

func TestNearestPluginWins(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins(public))))
	require.NoError(t, s.Get("/home", ok))
	require.NoError(t, s.Register(func(s *app.Server) error {
		if err := s.Register(cors.Plugin(cors.Origins(admin))); err != nil {
			return err
		}
		if err := s.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("no") }); err != nil {
			return err
		}
		if err := s.Get("/users", ok); err != nil {
			return err
		}
		return s.Get("/open", ok, cors.Override(cors.Origins("*")))
	}, app.Prefix("/admin")))
	c := start(t, s)
	allowed := func(path, origin string) string {
		return c.do("GET", path, "Origin", origin).header.Get("Access-Control-Allow-Origin")
	}
	assert.Equal(t, public, allowed("/home", public))
	assert.Empty(t, allowed("/home", admin))
	assert.Equal(t, admin, allowed("/admin/users", admin))
	assert.Empty(t, allowed("/admin/users", public), "the nearer plugin's policy, not both")
	assert.Equal(t, "*", allowed("/admin/open", public), "an override merges over the nearest plugin's options")
	assert.Equal(t, admin, allowed("/admin/missing", admin), "a 404 under the prefix: the nearest plugin")
	assert.Empty(t, allowed("/admin/missing", public))
	assert.Equal(t, public, allowed("/missing", public))
	a := c.preflight("/admin/users", admin, "GET")
	assert.Equal(t, 204, a.status)
	assert.Equal(t, admin, a.header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, c.preflight("/admin/users", public, "GET").cors())
	assert.Equal(t, "Origin", c.do("GET", "/admin/users", "Origin", admin).vary(), "one Vary, though two plugins saw it")
}

func TestMountedHandlerPreflight(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(func(s *app.Server) error {
		if err := s.Register(cors.Plugin(cors.Origins(public))); err != nil {
			return err
		}
		return s.Mount("/files", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("file " + r.Method))
		}))
	}))
	c := start(t, s)
	a := c.preflight("/files/a.txt", public, "PUT")
	assert.Equal(t, 204, a.status, "the mount serves every method: the plugin answers")
	assert.Equal(t, "PUT", a.header.Get("Access-Control-Allow-Methods"))
	a = c.do("PUT", "/files/a.txt", "Origin", public)
	assert.Equal(t, "file PUT", a.body)
	assert.Equal(t, public, a.header.Get("Access-Control-Allow-Origin"))
}

func TestNoOpenAPIChange(t *testing.T) {
	t.Parallel()
	build := func(withCORS bool) string {
		s := app.New()
		if withCORS {
			require.NoError(t, s.Register(cors.Plugin(cors.Origins("*"))))
		}
		require.NoError(t, s.Get("/a", ok))
		require.NoError(t, s.Post("/a", ok))
		require.NoError(t, s.Ready())
		doc, err := openapi.Build(s.Routes(), openapi.Info{Title: "t", Version: "1"})
		require.NoError(t, err)
		return string(doc.JSON())
	}
	assert.JSONEq(t, build(false), build(true))
}

func TestPrintRoutesShowsEachRoutesPolicy(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins(public, admin), cors.Credentials())))
	require.NoError(t, s.Get("/a", ok))
	require.NoError(t, s.Get("/b", ok, cors.Off()))
	require.NoError(t, s.Get("/c", ok, cors.Override(cors.OriginPattern(`https://.*\.example`))))
	require.NoError(t, s.Ready())
	assert.Equal(t, `/
├── a (GET, HEAD) root
│     • guards: no auth, cors
│     • config: *cors.Route https://public.example https://admin.example, credentials (root)
├── b (GET, HEAD) root
│     • config: *cors.Route off
└── c (GET, HEAD) root
      • guards: no auth, cors
      • config: *cors.Route override: https://public.example https://admin.example, origins matching ^(?:https://.*\.example)$, credentials (root)
`, s.PrintRoutes())
}

func TestOnePluginValueInTwoContexts(t *testing.T) {
	t.Parallel()
	p := cors.Plugin(cors.Origins(public))
	s := app.New()
	for _, name := range []string{"a", "b"} {
		require.NoError(t, s.Register(func(s *app.Server) error {
			if err := s.Register(p); err != nil {
				return err
			}
			return s.Get("/"+name, ok)
		}, app.Name(name)))
	}
	c := start(t, s)
	for _, path := range []string{"/a", "/b"} {
		assert.Equal(t, public, c.do("GET", path, "Origin", public).header.Get("Access-Control-Allow-Origin"), path)
	}
	out := s.PrintRoutes()
	assert.Contains(t, out, "(root > a)")
	assert.Contains(t, out, "(root > b)")
}
