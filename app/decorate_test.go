package app_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/dig"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

type session struct{ user string }

type withMap struct {
	Name  string
	Roles map[string]bool
}

type deepShare struct {
	Tags  [2][]string
	Inner struct{ Any any }
}

// A request decorator's value is where every request starts, so a value
// that holds a reference would be one object shared by all of them.
func TestDecoratorValuesThatShareAreRefused(t *testing.T) {
	t.Parallel()
	refused := []struct {
		name  string
		value any
		what  string
	}{
		{"pointer", &session{}, "its *app_test.session value"},
		{"map", map[string]int{}, "its map[string]int value"},
		{"slice", []string{}, "its []string value"},
		{"channel", make(chan int), "its chan int value"},
		{"function", func() {}, "its func() value"},
		{"struct holding a map", withMap{Roles: map[string]bool{}}, "its app_test.withMap value (at .Roles, a map)"},
		{"array in a struct holding a slice", deepShare{Tags: [2][]string{nil, {"x"}}}, "its app_test.deepShare value (at .Tags[1], a slice)"},
		{"interface in a struct holding a pointer", deepShare{Inner: struct{ Any any }{&session{}}}, "its app_test.deepShare value (at .Inner.Any, a pointer)"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			err := s.DecorateRequest("x", tt.value)
			require.ErrorIs(t, err, app.ErrInvalidDecorator)
			assert.Contains(t, err.Error(), tt.what)
			assert.ErrorIs(t, s.Ready(), app.ErrInvalidDecorator, "Ready reports it too")
		})
	}

	s := app.New()
	err := s.DecorateRequest("session", &session{})
	assert.EqualError(t, err, `invalid request decorator "session" in root: it would share `+
		`its *app_test.session value with every request; declare it with a typed nil, DecorateRequest("session", (*app_test.session)(nil)), `+
		`and set a fresh value per request with req.SetDecorator in a hook (or provide a service with Decorate to share one on purpose)`)

	accepted := []any{
		(*session)(nil), map[string]int(nil), []string(nil), (chan int)(nil), (func())(nil),
		42, "text", session{user: "anonymous"}, withMap{Name: "x"}, deepShare{}, [3]int{1, 2, 3},
		time.Now(), bearer.Identity{Index: -1},
	}
	for i, v := range accepted {
		assert.NoError(t, app.New().DecorateRequest("x", v), "%d: %#v", i, v)
	}
}

// A typed nil declares the decorator; a hook gives each request its own
// value. Run with -race: nothing is shared between requests.
func TestTypedNilDecoratorGivesEachRequestItsOwnValue(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.DecorateRequest("session", (*session)(nil)))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		return req.SetDecorator("session", &session{user: req.Header("X-User")})
	})
	type deps struct {
		app.In
		Session *session `name:"session"`
	}
	s.AddHook(app.PreHandler, func(d deps) { d.Session.user += "!" })
	s.Get("/", func(d deps) (string, error) { return d.Session.user, nil })
	require.NoError(t, s.Ready())

	const n = 500
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("X-User", fmt.Sprint("user", i))
			res, err := s.Inject(req)
			if err != nil {
				got[i] = err.Error()
				return
			}
			b, _ := io.ReadAll(res.Body)
			got[i] = string(b)
		}()
	}
	wg.Wait()
	for i, body := range got {
		assert.Equal(t, fmt.Sprint("user", i, "!"), body)
	}
}

func TestRequestDecoratorRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server)
		err   error
	}{
		{"child redeclares a root decorator", func(s *app.Server) {
			s.DecorateRequest("x", 1)
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 2) }, app.Name("child"))
		}, scope.ErrDuplicate},
		{"same name twice in one context", func(s *app.Server) {
			s.DecorateRequest("x", 1)
			s.DecorateRequest("x", 1)
		}, scope.ErrDuplicate},
		{"siblings may use the same name", func(s *app.Server) {
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 1) }, app.Name("a"))
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 2) }, app.Name("b"))
		}, nil},
		{"a parent may declare after a child did (the child is already loaded)", func(s *app.Server) {
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 1) }, app.Name("a"))
			s.Register(func(c *app.Server) error { return nil }, app.Name("b"))
		}, nil},
		{"untyped nil value", func(s *app.Server) { s.DecorateRequest("x", nil) }, app.ErrInvalidDecorator},
		{"empty name", func(s *app.Server) { s.DecorateRequest("", 1) }, app.ErrInvalidDecorator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			tt.build(s)
			err := s.Ready()
			if tt.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.err)
		})
	}
}

func TestDuplicateDecoratorErrorSaysWhere(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("user", "")
	s.Register(func(c *app.Server) error { return c.DecorateRequest("user", "") }, app.Name("auth"))
	err := s.Ready()
	var de *scope.DuplicateError
	require.ErrorAs(t, err, &de)
	var pe *app.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "auth", pe.Plugin)
	assert.Equal(t, "root > auth", pe.Context)
	assert.Contains(t, err.Error(), `request decorator "user" is already declared in ancestor context root`)
}

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

func TestDecoratorTypeMismatchFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("answer", 42)
	type deps struct {
		app.In
		Answer string `name:"answer"`
	}
	s.Get("/", func(deps) error { return nil })
	err := s.Ready()
	require.ErrorIs(t, err, httpx.ErrDecoratorType)
	assert.Contains(t, err.Error(), `needs request decorator "answer" as string (field Answer), but it holds int`)
}

type counter struct{ n int }

// Not parallel: testing.AllocsPerRun refuses to run beside other tests.
func TestServicesAreResolvedOnceAtStartup(t *testing.T) {
	built := 0
	s := app.New()
	require.NoError(t, s.Decorate(func() *counter { built++; return &counter{} }))
	require.NoError(t, s.DecorateRequest("answer", 42))
	type deps struct {
		app.In
		C      *counter
		Answer int `name:"answer"`
	}
	require.NoError(t, s.Get("/", func(rep *httpx.Reply, d deps) error {
		d.C.n++
		return rep.Send(d.Answer)
	}))
	require.NoError(t, s.Ready())
	assert.Equal(t, 1, built, "the constructor runs once, at Ready")
	for range 100 {
		status, body, _ := do(t, s, "GET", "/")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "42", body)
	}
	assert.Equal(t, 1, built, "requests never reach dig")

	// A dig Invoke costs some 66 allocations; a whole request here costs
	// far fewer, so none can be happening per request.
	req := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	allocs := testing.AllocsPerRun(200, func() {
		w.Body.Reset()
		s.ServeHTTP(w, req)
	})
	assert.Less(t, allocs, 20.0)
}

func TestServiceShadowingAndErrors(t *testing.T) {
	t.Parallel()
	type DB struct{ name string }
	s := app.New()
	require.NoError(t, s.Decorate(&DB{name: "root"}))
	s.Register(func(c *app.Server) error {
		c.Decorate(&DB{name: "child"})
		return c.Get("/child", func(db *DB) (string, error) { return db.name, nil })
	}, app.Name("child"))
	s.Get("/root", func(db *DB) (string, error) { return db.name, nil })
	require.NoError(t, s.Ready())
	_, body, _ := do(t, s, "GET", "/child")
	assert.Equal(t, "child", body)
	_, body, _ = do(t, s, "GET", "/root")
	assert.Equal(t, "root", body)

	// Twice in one context is refused.
	s2 := app.New()
	s2.Decorate(&DB{})
	assert.ErrorIs(t, s2.Decorate(&DB{}), scope.ErrDuplicate)

	// A service only a sibling provides is named in the error.
	s3 := app.New()
	s3.Register(func(c *app.Server) error { return c.Decorate(&DB{}) }, app.Name("db"))
	s3.Register(func(c *app.Server) error {
		return c.Get("/x", func(*DB) error { return nil })
	}, app.Name("api"))
	err := s3.Ready()
	require.ErrorIs(t, err, scope.ErrNotVisible)
	assert.Contains(t, err.Error(), "route GET /x (root > api) needs service *app_test.DB, which is only provided in sibling context root > db")
}

func TestNamedServicesAndOptionalFields(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate("primary", app.Named("dsn"))
	type deps struct {
		app.In
		DSN     string  `name:"dsn"`
		Missing *string `name:"nope" optional:"true"`
		Absent  string  `name:"ghost" optional:"true"`
	}
	s.Get("/", func(d deps) (map[string]any, error) {
		return map[string]any{"dsn": d.DSN, "missing": d.Missing == nil, "absent": d.Absent}, nil
	})
	_, body, _ := do(t, s, "GET", "/")
	assert.JSONEq(t, `{"dsn":"primary","missing":true,"absent":""}`, body)
}

// Services provided through dig result structs.

type (
	outA      struct{ name string }
	outB      struct{ name string }
	outPlugin struct{ name string }
	outDep    struct{}
)

type outResults struct {
	dig.Out
	A       *outA
	B       *outB        `name:"b"`
	Plugins *outPlugin   `group:"plugins"`
	More    []*outPlugin `group:"plugins,flatten"`
}

func newOutResults() outResults {
	return outResults{A: &outA{"a"}, B: &outB{"b"}, Plugins: &outPlugin{"p1"}, More: []*outPlugin{{"p2"}}}
}

func TestDigOutResultsAreRegistered(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(newOutResults))
	s.Register(app.Describe(noop, app.Name("user"),
		app.NeedsService[*outA](), app.NeedsService[*outB]("b")))
	type deps struct {
		app.In
		A *outA
		B *outB `name:"b"`
	}
	s.Get("/", func(d deps) (string, error) { return d.A.name + d.B.name, nil })
	require.NoError(t, s.Ready(), "NeedsService sees services of a result struct")
	_, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, "ab", body)

	vis := s.PrintVisibility()
	for _, line := range []string{
		"service *app_test.outA  from here",
		`service *app_test.outB named "b"  from here`,
		`service *app_test.outPlugin in group "plugins"  from here`,
	} {
		assert.Contains(t, vis, line)
	}
	assert.NotContains(t, vis, "outResults", "the result struct itself is no service")
	assert.Equal(t, 1, strings.Count(vis, `in group "plugins"  from here`), "one group, listed once per context")
}

func TestDigOutResultsSeenFromAChild(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate(newOutResults)
	var shadowed error
	s.Register(func(c *app.Server) error {
		return c.Register(app.Describe(noop, app.Name("user"), app.NeedsService[*outB]("b")))
	}, app.Name("child"))
	s.Register(func(c *app.Server) error {
		shadowed = c.Decorate(newOutResults)
		return nil
	}, app.Name("shadow"))
	require.NoError(t, s.Ready(), "a child sees its parent's result-struct services")
	require.NoError(t, shadowed, "and may shadow them like any service")
}

func TestDigOutResultsDuplicateInOneContext(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(newOutResults))
	err := s.Decorate(func() *outA { return &outA{} })
	require.ErrorIs(t, err, scope.ErrDuplicate)
	assert.Contains(t, err.Error(), "service *app_test.outA is already declared in root")
	type more struct {
		dig.Out
		P *outPlugin `group:"plugins"`
	}
	assert.NoError(t, s.Decorate(func() more { return more{P: &outPlugin{}} }), "groups take many values")
}

func TestDigOutServiceWithAMissingDependency(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate(func(*outDep) outResults { return newOutResults() })
	s.Get("/", func(*outA) {})
	err := s.Ready()
	require.Error(t, err)
	var re *app.RouteError
	require.ErrorAs(t, err, &re)
	assert.False(t, errors.Is(err, scope.ErrNotVisible), "it is visible; it cannot be built: %v", err)
	assert.Contains(t, err.Error(), "needs service *app_test.outA, which could not be built")
	assert.Contains(t, err.Error(), "*app_test.outDep")
}
