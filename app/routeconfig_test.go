package app_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

// limit and off are two plugins' config types.
type limit struct{ PerMinute int }

func (l limit) String() string { return "max " + strconv.Itoa(l.PerMinute) + "/min" }

type off struct{}

// limiter is a plugin reading limit: its OnRoute hook collects each
// route's, its middleware answers X-Limit from the route's own.
func limiter(seen map[string]int) func(s *app.Server) error {
	return func(s *app.Server) error {
		if err := s.OnRoute(func(spec *app.RouteSpec) error {
			if l, ok := app.RouteConfig[limit](spec); ok {
				seen[spec.Method+" "+spec.Path] = l.PerMinute
			}
			return nil
		}); err != nil {
			return err
		}
		return s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if l, ok := app.RouteConfigOf[limit](r); ok {
					w.Header().Set("X-Limit", strconv.Itoa(l.PerMinute))
				}
				next.ServeHTTP(w, r)
			})
		})
	}
}

func TestRouteConfigIsReadAtReadyAndPerRequest(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		seen := map[string]int{}
		s := app.New()
		require.NoError(t, s.Register(app.Wrap(limiter(seen))))
		ok := func() (string, error) { return "ok", nil }
		require.NoError(t, s.Get("/limited", ok, app.WithConfig(limit{5})))
		require.NoError(t, s.Post("/limited", ok))
		require.NoError(t, s.Get("/free", ok))
		send := start(s)

		assert.Equal(t, map[string]int{"GET /limited": 5, "HEAD /limited": 5}, seen, "the HEAD twin carries the GET's config")
		assert.Equal(t, "5", send("GET", "/limited").Header.Get("X-Limit"))
		assert.Equal(t, "5", send("HEAD", "/limited").Header.Get("X-Limit"))
		assert.Empty(t, send("POST", "/limited").Header.Get("X-Limit"), "config is per route, not per path")
		assert.Empty(t, send("GET", "/free").Header.Get("X-Limit"))
		assert.Empty(t, send("GET", "/nowhere").Header.Get("X-Limit"))
	})
}

func TestRouteConfigErrors(t *testing.T) {
	t.Parallel()
	ok := func() {}
	cases := []struct {
		name  string
		build func(s *app.Server) error
		is    error
		want  string
	}{
		{"no plugin reads it", func(s *app.Server) error {
			return s.Register(func(s *app.Server) error { return s.Get("/x", ok, app.WithConfig(limit{1})) }, app.Name("api"))
		}, app.ErrUnreadConfig, "route GET /x (root > api) has config app_test.limit max 1/min, which no OnRoute hook of its contexts reads: the plugin it is for is not registered in root > api or an ancestor"},
		{"a sibling's plugin does not read it", func(s *app.Server) error {
			if err := s.Register(limiter(map[string]int{}), app.Name("limited")); err != nil {
				return err
			}
			return s.Register(func(s *app.Server) error { return s.Post("/x", ok, app.WithConfig(limit{1})) }, app.Name("api"))
		}, app.ErrUnreadConfig, "route POST /x (root > api) has config"},
		{"one value read, another not", func(s *app.Server) error {
			if err := s.Register(app.Wrap(limiter(map[string]int{}))); err != nil {
				return err
			}
			return s.Get("/x", ok, app.WithConfig(limit{1}), app.WithConfig(off{}))
		}, app.ErrUnreadConfig, "has config app_test.off, which no OnRoute hook"},
		{"two values of one type", func(s *app.Server) error {
			return s.Get("/x", ok, app.WithConfig(limit{1}), app.WithConfig(limit{2}))
		}, app.ErrInvalidHandler, "route GET /x (root) has two config values of type app_test.limit: a route holds one per type"},
		{"nil", func(s *app.Server) error { return s.Get("/x", ok, app.WithConfig(nil)) }, app.ErrInvalidHandler, "has a nil config value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			_ = c.build(s)
			err := s.Ready()
			require.ErrorIs(t, err, c.is)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestRouteConfigDroppedRouteIsNotChecked(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.OnRoute(func(spec *app.RouteSpec) error {
		if spec.Path == "/gone" {
			spec.Method = ""
		}
		return nil
	}))
	require.NoError(t, s.Get("/gone", func() {}, app.WithConfig(limit{1})))
	require.NoError(t, s.Ready())
}

func TestRouteConfigInterfaceLookup(t *testing.T) {
	t.Parallel()
	var got []string
	s := app.New()
	require.NoError(t, s.OnRoute(func(spec *app.RouteSpec) error {
		if st, ok := app.RouteConfig[interface{ String() string }](spec); ok {
			got = append(got, spec.Method+" "+st.String())
		}
		_, hasOff := app.RouteConfig[off](spec)
		assert.False(t, hasOff)
		return nil
	}))
	require.NoError(t, s.Post("/x", func() {}, app.WithConfig(limit{3})))
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{"POST max 3/min"}, got)
}

func TestPrintRoutesShowsRouteConfig(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(app.Wrap(limiter(map[string]int{}))))
	require.NoError(t, s.OnRoute(func(spec *app.RouteSpec) error { app.RouteConfig[off](spec); return nil }))
	ok := func() {}
	require.NoError(t, s.Get("/a", ok, app.WithConfig(limit{5}), app.WithConfig(off{})))
	require.NoError(t, s.Post("/a", ok))
	require.NoError(t, s.Ready())
	assert.Equal(t, `/
└── a (GET, HEAD) root
      • config: app_test.limit max 5/min, app_test.off
    a (POST) root
`, s.PrintRoutes())
}

// policy answers a preflight it is given, naming its context and the
// route's config, and marks every other request it sees.
func policy(name string) app.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if app.Preflight(r) {
				l, _ := app.RouteConfigOf[limit](r)
				w.Header().Set("X-Policy", name+" "+strconv.Itoa(l.PerMinute))
				w.WriteHeader(http.StatusNoContent)
				return
			}
			w.Header().Add("X-Seen", name)
			next.ServeHTTP(w, r)
		})
	}
}

func TestPreflightIsAnsweredByTheRequestedMethodsContext(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		ok := func() {}
		s := app.New()
		require.NoError(t, s.OnRoute(func(spec *app.RouteSpec) error { app.RouteConfig[limit](spec); return nil }))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Use(policy("reader")); err != nil {
				return err
			}
			return p.Get("/items/:id", ok, app.WithConfig(limit{1}))
		}, app.Name("reader")))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Use(policy("writer")); err != nil {
				return err
			}
			if err := p.Mount("/files", http.NotFoundHandler()); err != nil {
				return err
			}
			return p.Patch("/items/:id", ok, app.WithConfig(limit{2}))
		}, app.Name("writer")))
		require.NoError(t, s.Register(func(p *app.Server) error {
			return p.Delete("/items/:id", ok) // no middleware here
		}, app.Name("plain")))
		send := start(s)

		cases := []struct {
			name, method, target, requested string
			status                          int
			policy, allow                   string
		}{
			{"GET's context answers for GET", "OPTIONS", "/items/1", "GET", 204, "reader 1", ""},
			{"HEAD is GET's", "OPTIONS", "/items/1", "HEAD", 204, "reader 1", ""},
			{"PATCH's context answers for PATCH, though GET's owns the path", "OPTIONS", "/items/1", "PATCH", 204, "writer 2", ""},
			{"a context without middleware answers 405", "OPTIONS", "/items/1", "DELETE", 405, "", "DELETE, GET, HEAD, PATCH"},
			{"a method the path does not serve: the owner's middleware, not a preflight", "OPTIONS", "/items/1", "PUT", 405, "", "DELETE, GET, HEAD, PATCH"},
			{"no requested method: the owner's middleware", "OPTIONS", "/items/1", "", 405, "", "DELETE, GET, HEAD, PATCH"},
			{"a mount serves every method", "OPTIONS", "/files/a", "PUT", 204, "writer 0", ""},
		}
		for _, c := range cases {
			var h []string
			if c.requested != "" {
				h = []string{"Access-Control-Request-Method", c.requested}
			}
			res := send(c.method, c.target, h...)
			assert.Equal(t, c.status, res.StatusCode, c.name)
			assert.Equal(t, c.policy, res.Header.Get("X-Policy"), c.name)
			assert.Equal(t, c.allow, res.Header.Get("Allow"), c.name)
		}
		assert.Equal(t, []string{"reader"}, send("OPTIONS", "/items/1", "Access-Control-Request-Method", "PUT").Header.Values("X-Seen"))
		assert.Equal(t, []string{"writer"}, send("PATCH", "/items/1", "Access-Control-Request-Method", "GET").Header.Values("X-Seen"),
			"only an OPTIONS request is a preflight")
	})
}
