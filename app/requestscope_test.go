package app_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// tx stands for a per-request database transaction: begun by a
// request-scoped constructor, committed or rolled back by its cleanup.
type tx struct{ id string }

// txLog records how each request's transaction ended.
type txLog struct {
	mu    sync.Mutex
	ends  []string
	built atomic.Int32
}

func (l *txLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ends = append(l.ends, s)
}

func (l *txLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ends...)
}

// begin is the request-scoped constructor of a *tx: it counts builds and
// records the cleanup's verdict.
func (l *txLog) begin(commitErr error) func(*httpx.Request) (*tx, func(bool) error, error) {
	return func(req *httpx.Request) (*tx, func(bool) error, error) {
		l.built.Add(1)
		t := &tx{id: req.Header("x-id")}
		return t, func(failed bool) error {
			if failed {
				l.add("rollback " + t.id)
				return nil
			}
			l.add("commit " + t.id)
			return commitErr
		}, nil
	}
}

// txServer is a server without logs that provides a *tx per request,
// recorded in log.
func txServer(t *testing.T, log *txLog) *app.Server {
	t.Helper()
	s := app.New(app.WithLogger(zap.NewNop()))
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	return s
}

// A request value is built the first time a request needs it, once per
// request however many hooks and parameters take it, and never for a
// route that does not take it.
func TestRequestValueIsLazyAndBuiltOncePerRequest(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New()
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	s.Get("/unused", func() (string, error) { return "no tx", nil })
	type deps struct {
		app.In
		Tx *tx
	}
	seen := make(chan *tx, 4)
	s.Get("/used", func(t *tx, d deps) (string, error) {
		seen <- t
		seen <- d.Tx
		return t.id, nil
	}, app.WithHook(app.PreHandler, func(t *tx) error { seen <- t; return nil }))

	status, body, _ := do(t, s, "GET", "/unused")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "no tx", body)
	assert.Zero(t, log.built.Load(), "a route that takes no request value builds none")

	status, body, _ = do(t, s, "GET", "/used", "x-id", "r1")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "r1", body)
	assert.EqualValues(t, 1, log.built.Load(), "the hook and both parameters share one value")
	first := <-seen
	assert.Same(t, first, <-seen)
	assert.Same(t, first, <-seen)

	do(t, s, "GET", "/used", "x-id", "r2")
	assert.EqualValues(t, 2, log.built.Load(), "the next request builds its own")
	assert.Equal(t, []string{"commit r1", "commit r2"}, log.all())
}

type tenant struct{ name string }

type repo interface{ Tenant() string }

type tenantRepo struct{ t *tenant }

func (r *tenantRepo) Tenant() string { return r.t.name }

// A request-scoped constructor takes services, request decorators, other
// request values and the request; As provides its value as an interface.
func TestRequestValueDependencies(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate("acme-", app.Named("prefix")))
	require.NoError(t, s.DecorateRequest("user", ""))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		return req.SetDecorator("user", req.Header("x-user"))
	})
	type tenantDeps struct {
		app.In
		Prefix string `name:"prefix"`
		User   string `name:"user"`
	}
	require.NoError(t, s.ProvideRequest(func(ctx context.Context, log *zap.Logger, d tenantDeps) (*tenant, error) {
		if d.User == "" {
			return nil, httpx.NewError(http.StatusUnauthorized, "", "who are you?")
		}
		return &tenant{name: d.Prefix + d.User}, ctx.Err()
	}))
	require.NoError(t, s.ProvideRequest(func(t *tenant) *tenantRepo { return &tenantRepo{t: t} }, app.As[repo]()))
	s.Get("/", func(r repo, own *tenantRepo) (string, error) {
		if r != repo(own) {
			return "", errors.New("two values")
		}
		return r.Tenant(), nil
	})

	status, body, _ := do(t, s, "GET", "/", "x-user", "bob")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "acme-bob", body)

	status, body, _ = do(t, s, "GET", "/")
	assert.Equal(t, http.StatusUnauthorized, status, "the constructor's error answers")
	assert.Contains(t, body, "who are you?")

	// Named, and optional: an invisible one leaves the field zero.
	n := app.New()
	require.NoError(t, n.ProvideRequest(func() *tenant { return &tenant{name: "named"} }, app.Named("t")))
	type named struct {
		app.In
		T       *tenant `name:"t" optional:"true"`
		Missing *tenant `name:"other" optional:"true"`
	}
	n.Get("/", func(d named) (string, error) { return fmt.Sprint(d.T.name, d.Missing == nil), nil })
	_, body, _ = do(t, n, "GET", "/")
	assert.Equal(t, "namedtrue", body)
}

// Visibility is encapsulated and checked at Ready: a route that takes a
// value only a sibling provides is a start-up error saying where it is;
// a wrapped plugin provides into its parent.
func TestRequestValueVisibility(t *testing.T) {
	t.Parallel()
	type deps struct {
		app.In
		Tx *tx
	}
	var log txLog
	s := app.New()
	s.Register(func(c *app.Server) error { return c.ProvideRequest(log.begin(nil)) }, app.Name("db"))
	s.Register(func(c *app.Server) error {
		return c.Get("/x", func(deps) error { return nil })
	}, app.Name("api"))
	err := s.Ready()
	require.ErrorIs(t, err, scope.ErrNotVisible)
	assert.Contains(t, err.Error(),
		"route GET /x (root > api) needs request value *app_test.tx, which is only provided in sibling context root > db (field Tx)")

	s2 := app.New()
	s2.Register(func(c *app.Server) error { return c.ProvideRequest(log.begin(nil)) }, app.Name("db"))
	s2.Register(func(c *app.Server) error {
		return c.Get("/x", func(*tx) error { return nil })
	}, app.Name("api"))
	err = s2.Ready()
	require.ErrorIs(t, err, scope.ErrNotVisible)
	assert.Contains(t, err.Error(), "route GET /x (root > api) needs request value *app_test.tx, which is only provided in sibling context root > db")

	s3 := app.New()
	s3.Register(app.Wrap(func(c *app.Server) error { return c.ProvideRequest(log.begin(nil)) }, app.Name("db")))
	s3.Register(func(c *app.Server) error {
		return c.Get("/x", func(d deps) (string, error) { return d.Tx.id, nil })
	}, app.Name("api"))
	status, body, _ := do(t, s3, "GET", "/x", "x-id", "w")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "w", body)

	// Hooks that run beside the handler cannot take one.
	s4 := app.New()
	s4.ProvideRequest(log.begin(nil))
	s4.Get("/x", func() error { return nil }, app.WithHook(app.OnTimeout, func(*tx) error { return nil }))
	err = s4.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "request value *app_test.tx cannot be taken in onTimeout and onRequestAbort hooks")
}

type (
	cycleA struct{}
	cycleB struct{}
	cycleC struct{}
)

// Constructors that need each other are a start-up error naming the
// cycle, even when no route takes their values.
func TestRequestValueCycleFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.ProvideRequest(func(*cycleB) *cycleA { return nil })
	s.ProvideRequest(func(*cycleC) *cycleB { return nil })
	s.ProvideRequest(func(*cycleA) *cycleC { return nil })
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidDecorator)
	assert.Contains(t, err.Error(), "request-scoped constructors need each other: "+
		"request value *app_test.cycleA (provided in root) needs request value *app_test.cycleB (provided in root) needs "+
		"request value *app_test.cycleC (provided in root) needs request value *app_test.cycleA (provided in root)")

	self := app.New()
	self.ProvideRequest(func(*cycleA) *cycleA { return nil })
	assert.ErrorContains(t, self.Ready(), "need each other: request value *app_test.cycleA (provided in root) needs request value *app_test.cycleA")
}

// The cleanup learns whether the request failed: an error, a panic or a
// status of 400 or more roll back; anything else commits.
func TestRequestValueCleanup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler any
		hooks   []app.RouteOption
		status  int
		end     string
	}{
		{"value", func(t *tx) (string, error) { return "ok", nil }, nil, http.StatusOK, "commit"},
		{"sent by the handler", func(rep *httpx.Reply, t *tx) error { return rep.Code(http.StatusCreated).Send("made") },
			nil, http.StatusCreated, "commit"},
		{"no reply", func(t *tx) error { return nil }, nil, http.StatusOK, "commit"},
		{"error", func(t *tx) (string, error) { return "", errors.New("boom") }, nil, http.StatusInternalServerError, "rollback"},
		{"client error", func(t *tx) (string, error) { return "", httpx.NewError(http.StatusConflict, "", "taken") },
			nil, http.StatusConflict, "rollback"},
		{"status 404 with a value", func(rep *httpx.Reply, t *tx) (string, error) { rep.Code(http.StatusNotFound); return "gone", nil },
			nil, http.StatusNotFound, "rollback"},
		{"sent 400 by the handler", func(rep *httpx.Reply, t *tx) error { return rep.Code(http.StatusBadRequest).Send("no") },
			nil, http.StatusBadRequest, "rollback"},
		{"panic", func(t *tx) (string, error) { panic("bug") }, nil, http.StatusInternalServerError, "rollback"},
		{"hook answers", func() (string, error) { return "never", nil },
			[]app.RouteOption{app.WithHook(app.PreHandler, func(rep *httpx.Reply, t *tx) error {
				return rep.Code(http.StatusUnauthorized).Send("no")
			})}, http.StatusUnauthorized, "rollback"},
		{"hook fails", func() (string, error) { return "never", nil },
			[]app.RouteOption{app.WithHook(app.PreHandler, func(t *tx) error { return httpx.NewError(http.StatusForbidden, "", "no") })},
			http.StatusForbidden, "rollback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log txLog
			s := txServer(t, &log)
			require.NoError(t, s.Get("/", tt.handler, tt.hooks...))
			status, _, _ := do(t, s, "GET", "/", "x-id", "a")
			assert.Equal(t, tt.status, status)
			assert.Equal(t, []string{tt.end + " a"}, log.all())
		})
	}
}

// A cleanup that fails (a commit refused) answers the request when the
// reply is not written yet, and is logged when it is.
func TestRequestValueFailingCleanup(t *testing.T) {
	t.Parallel()
	refused := errors.New("commit refused")
	tests := []struct {
		name    string
		handler any
		status  int
		body    string
	}{
		{"value returned: 500 instead", func(t *tx) (string, error) { return "saved", nil }, http.StatusInternalServerError, "Internal Server Error"},
		{"no reply: 500 instead", func(t *tx) error { return nil }, http.StatusInternalServerError, "Internal Server Error"},
		{"sent by the handler: logged", func(rep *httpx.Reply, t *tx) error { return rep.Send("saved") }, http.StatusOK, "saved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log txLog
			core, logs := observer.New(zapcore.ErrorLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			require.NoError(t, s.ProvideRequest(log.begin(refused)))
			require.NoError(t, s.Get("/", tt.handler))
			status, body, _ := do(t, s, "GET", "/", "x-id", "a")
			assert.Equal(t, tt.status, status)
			assert.Contains(t, body, tt.body)
			assert.Equal(t, []string{"commit a"}, log.all())
			found := logs.FilterMessageSnippet("request value cleanup failed: commit refused")
			assert.Equal(t, 1, found.Len(), "the failure is logged once: %v", logs.All())
		})
	}

	// A panicking cleanup is a failing one; the others still run, last
	// built first.
	var order []string
	s := app.New(app.WithLogger(zap.NewNop()))
	s.ProvideRequest(func() (*cycleA, func(bool) error, error) {
		return &cycleA{}, func(bool) error { order = append(order, "a"); return nil }, nil
	})
	s.ProvideRequest(func(*cycleA) (*cycleB, func(bool) error, error) {
		return &cycleB{}, func(bool) error { order = append(order, "b"); panic("cleanup bug") }, nil
	})
	s.Get("/", func(*cycleB) (string, error) { return "saved", nil })
	status, _, _ := do(t, s, "GET", "/")
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, []string{"b", "a"}, order)
}

// Once a cleanup fails (an error, a panic), the cleanups still to run
// roll back: the request is a failed one, and a value built before the
// failing one must not commit what the failing one could not.
func TestCleanupAfterAFailedOneRollsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		commitB func() error
		handler any
		status  int
	}{
		{"error, value returned", func() error { return errors.New("commit refused") },
			func(*cycleB) (string, error) { return "saved", nil }, http.StatusInternalServerError},
		{"panic, value returned", func() error { panic("cleanup bug") },
			func(*cycleB) (string, error) { return "saved", nil }, http.StatusInternalServerError},
		{"error, sent by the handler", func() error { return errors.New("commit refused") },
			func(rep *httpx.Reply, _ *cycleB) error { return rep.Send("saved") }, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var ends []string
			end := func(name string, failed bool) {
				mu.Lock()
				defer mu.Unlock()
				if failed {
					name += " rollback"
				} else {
					name += " commit"
				}
				ends = append(ends, name)
			}
			s := app.New(app.WithLogger(zap.NewNop()))
			require.NoError(t, s.ProvideRequest(func() (*cycleA, func(bool) error, error) {
				return &cycleA{}, func(failed bool) error { end("a", failed); return nil }, nil
			}))
			require.NoError(t, s.ProvideRequest(func(*cycleA) (*cycleB, func(bool) error, error) {
				return &cycleB{}, func(failed bool) error { end("b", failed); return tt.commitB() }, nil
			}))
			require.NoError(t, s.Get("/", tt.handler))
			status, _, _ := do(t, s, "GET", "/")
			assert.Equal(t, tt.status, status)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"b commit", "a rollback"}, ends)
		})
	}
}

// Concurrent requests each get their own value (run with -race).
func TestRequestValueConcurrentRequests(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New()
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	s.Get("/tx", func(t *tx) (string, error) { return t.id + t.id, nil })
	// A Provider's value that is not a pointer is kept in a cell, whichever
	// way it is taken: a typed route's In struct, a reflective handler's
	// parameter or In struct, TypedValue's parameter.
	require.NoError(t, s.ProvideRequest(app.Provider(func(_ context.Context, in struct {
		app.In
		Req *httpx.Request
	}) (visit, func(bool) error, error) {
		return visit{user: in.Req.Header("x-id")}, nil, nil
	})))
	type visitIn struct {
		app.In
		V visit
	}
	require.NoError(t, app.Get(s, "/typed", func(_ context.Context, in visitIn) (string, error) { return in.V.user + in.V.user, nil }))
	require.NoError(t, s.Get("/param", func(v visit, in visitIn) (string, error) { return v.user + in.V.user, nil }))
	require.NoError(t, s.Get("/value", app.TypedValue(func(v visit) (string, error) { return v.user + v.user, nil })))
	require.NoError(t, s.Ready())
	const n = 80
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := strconv.Itoa(i)
			target := []string{"/tx", "/typed", "/param", "/value"}[i%4]
			status, body, _ := do(t, s, "GET", target, "x-id", id)
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, id+id, body, target)
		}()
	}
	wg.Wait()
	assert.EqualValues(t, n/4, log.built.Load())
	assert.Len(t, log.all(), n/4)
}

// Malformed constructors are refused where they are provided.
func TestProvideRequestRefusesMalformedConstructors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ctor any
		want string
	}{
		{"nil", nil, "invalid request-scoped constructor in root: nil"},
		{"not a function", 3, "int is not a function"},
		{"no result", func() {}, "func() must return T, (T, error) or (T, func(failed bool) error, error)"},
		{"error only", func() error { return nil }, "must return T"},
		{"wrong cleanup", func() (int, func() error, error) { return 0, nil, nil }, "must return T"},
		{"variadic", func(...int) int { return 0 }, "is variadic"},
		{"Provider: nil", app.Provider[struct{}, *tx](nil), "invalid request-scoped constructor in root: nil function"},
		{"Provider: not an In struct", app.Provider(func(context.Context, tenant) (*tx, func(bool) error, error) { return nil, nil, nil }),
			"app_test.tenant cannot be a request value's input: embed app.In in a struct, or use struct{} for no input"},
		{"Provider: an error", app.Provider(func(context.Context, struct{}) (error, func(bool) error, error) { return nil, nil, nil }),
			"a request value cannot be an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := app.New().ProvideRequest(tt.ctor)
			require.ErrorIs(t, err, app.ErrInvalidDecorator)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	s := app.New()
	require.NoError(t, s.ProvideRequest(func() *tx { return nil }))
	assert.ErrorIs(t, s.ProvideRequest(func() *tx { return nil }), scope.ErrDuplicate)
	assert.ErrorContains(t, app.New().ProvideRequest(func() *tx { return nil }, app.As[repo]()), "*app_test.tx does not implement it")

	r := app.New()
	r.ProvideRequest(func(*httpx.Reply) *tx { return nil })
	assert.ErrorContains(t, r.Ready(), "request value *app_test.tx (provided in root): cannot take *httpx.Reply")
	b := app.New()
	b.ProvideRequest(func(app.Body[string]) *tx { return nil })
	assert.ErrorContains(t, b.Ready(), "cannot be taken in a request-scoped constructor")
}

// As provides a service as an interface too; depending on an interface
// nobody provides as such, while a visible service implements it, says
// how to fix it.
func TestServiceAsInterface(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(&tenantRepo{t: &tenant{name: "one"}}, app.As[repo]()))
	s.Get("/", func(r repo, own *tenantRepo) (string, error) {
		return fmt.Sprint(r.Tenant(), r == repo(own)), nil
	})
	_, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, "onetrue", body, "one value, as its own type and as the interface")

	named := app.New()
	require.NoError(t, named.Decorate(func() *tenantRepo { return &tenantRepo{t: &tenant{name: "n"}} }, app.Named("main"), app.As[repo]()))
	type deps struct {
		app.In
		R repo `name:"main"`
	}
	named.Get("/", func(d deps) (string, error) { return d.R.Tenant(), nil })
	_, body, _ = do(t, named, "GET", "/")
	assert.Equal(t, "n", body)

	without := app.New()
	require.NoError(t, without.Decorate(&tenantRepo{}))
	without.Get("/", func(repo) error { return nil })
	assert.ErrorContains(t, without.Ready(), "needs service app_test.repo, which no context provides; "+
		"service *app_test.tenantRepo, provided in root, implements it: provide it with app.As[app_test.repo]()")

	assert.ErrorContains(t, app.New().Decorate(&tenant{}, app.As[repo]()), "*app_test.tenant does not implement it")
}

// A plugin can ask what its context sees while it loads.
func TestLoadTimeQueries(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("user", "")
	s.Decorate(&tenant{})
	s.Decorate("x", app.Named("dsn"))
	s.ProvideRequest(func() *tx { return nil })
	var got []bool
	s.Register(func(c *app.Server) error {
		got = append(got,
			c.HasDecorator("user"), c.HasDecorator("nope"),
			app.HasService[*tenant](c), app.HasService[string](c, "dsn"), app.HasService[string](c), app.HasService[*tx](c),
			app.HasRequestValue[*tx](c), app.HasRequestValue[*tenant](c))
		return nil
	})
	s.Register(func(c *app.Server) error { return c.DecorateRequest("sibling", "") })
	s.Register(func(c *app.Server) error {
		got = append(got, c.HasDecorator("sibling"))
		return nil
	})
	require.NoError(t, s.Ready())
	assert.Equal(t, []bool{true, false, true, true, false, false, true, false, false}, got)
	assert.Contains(t, s.PrintVisibility(), "root > plugin-0\n  declares  —\n  sees      request decorator \"user\" string  from root\n"+
		"            service *app_test.tenant  from root\n            service string named \"dsn\"  from root\n"+
		"            request value *app_test.tx  from root\n", "PrintVisibility lists request values")
}

// The fast path (Typed, TypedValue) takes request values too, as a
// parameter or an In struct field; so do onResponse hooks, whose values
// are cleaned up after them.
func TestRequestValueTypedAndLateHooks(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New()
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	type deps struct {
		app.In
		Tx *tx
	}
	s.Get("/value", app.TypedValue(func(t *tx) (string, error) { return "v" + t.id, nil }))
	s.Get("/in", app.Typed(func(rep *httpx.Reply, d deps) error { return rep.Send("in" + d.Tx.id) }))
	s.Get("/late", func() (string, error) { return "late", nil },
		app.WithHook(app.OnResponse, func(t *tx) error { return nil }))
	for _, target := range []string{"/value", "/in", "/late"} {
		status, body, _ := do(t, s, "GET", target, "x-id", "1")
		assert.Equal(t, http.StatusOK, status)
		assert.Contains(t, []string{"v1", "in1", "late"}, body)
	}
	assert.Equal(t, []string{"commit 1", "commit 1", "commit 1"}, log.all())
}

// A handler that aborts the response (http.ErrAbortHandler, which
// net/http handles) still rolls back.
func TestRequestValueCleanupOnAbort(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New()
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	s.Get("/", func(*tx) error { panic(http.ErrAbortHandler) })
	require.NoError(t, s.Ready())
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("x-id", "ab")
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() { s.ServeHTTP(httptest.NewRecorder(), req) })
	assert.Equal(t, []string{"rollback ab"}, log.all())
}

// tenantIn is what the direct constructor of a *tenant takes.
type tenantIn struct {
	app.In
	Req    *httpx.Request
	Prefix string `name:"prefix"`
	User   string `name:"user"`
}

// A constructor made by Provider is called directly: its In struct is
// filled like a typed route's, ctx is the request's, and it mixes with
// reflective constructors as either kind's dependency. PrintRoutes lists
// the request values a route may build and marks those whose
// constructor is called by reflection.
func TestProviderBuildsRequestValuesDirectly(t *testing.T) {
	t.Parallel()
	var log txLog
	var tenants atomic.Int32
	s := app.New()
	require.NoError(t, s.Decorate("acme-", app.Named("prefix")))
	require.NoError(t, s.DecorateRequest("user", ""))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		return req.SetDecorator("user", req.Header("x-user"))
	})
	require.NoError(t, s.ProvideRequest(app.Provider(func(ctx context.Context, in tenantIn) (*tenant, func(bool) error, error) {
		if ctx != in.Req.Context() {
			return nil, nil, errors.New("ctx is not the request's")
		}
		if in.User == "" {
			return nil, nil, httpx.NewError(http.StatusUnauthorized, "", "who are you?")
		}
		tenants.Add(1)
		return &tenant{name: in.Prefix + in.User}, func(failed bool) error {
			log.add(fmt.Sprint("tenant failed=", failed))
			return nil
		}, nil
	})))
	require.NoError(t, s.ProvideRequest(log.begin(nil))) // reflective
	type repoIn struct {
		app.In
		Tenant *tenant
		Tx     *tx
	}
	require.NoError(t, s.ProvideRequest(app.Provider(func(_ context.Context, in repoIn) (*tenantRepo, func(bool) error, error) {
		return &tenantRepo{t: in.Tenant}, nil, nil // no cleanup
	}), app.As[repo]()))
	type handlerIn struct {
		app.In
		Repo   repo
		Tenant *tenant
		Fail   bool `query:"fail"`
	}
	require.NoError(t, app.Get(s, "/repo", func(_ context.Context, in handlerIn) (string, error) {
		if in.Repo.(*tenantRepo).t != in.Tenant {
			return "", errors.New("two tenants in one request")
		}
		if in.Fail {
			return "", httpx.NewError(http.StatusConflict, "", "no")
		}
		return in.Repo.Tenant(), nil
	}))
	require.NoError(t, app.Get(s, "/unused", func(context.Context, struct{}) (string, error) { return "none", nil }))

	status, body, _ := do(t, s, "GET", "/repo", "x-user", "bob", "x-id", "1")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "acme-bob", body)
	assert.Equal(t, []string{"commit 1", "tenant failed=false"}, log.all(), "last built, first cleaned up")
	assert.EqualValues(t, 1, tenants.Load(), "built once though taken twice")

	status, _, _ = do(t, s, "GET", "/repo?fail=true", "x-user", "bob", "x-id", "2")
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, []string{"rollback 2", "tenant failed=true"}, log.all()[2:])

	status, body, _ = do(t, s, "GET", "/repo")
	assert.Equal(t, http.StatusUnauthorized, status, "the constructor's error answers")
	assert.Contains(t, body, "who are you?")

	status, _, _ = do(t, s, "GET", "/unused")
	assert.Equal(t, http.StatusOK, status)
	assert.EqualValues(t, 2, tenants.Load(), "a route that takes none builds none")
	assert.EqualValues(t, 1+1, log.built.Load())

	assert.Equal(t, `/
├── repo (GET, HEAD) root
│     • request values: *app_test.tenant, *app_test.tx (by reflection), *app_test.tenantRepo
│     • onRequest: anonymous
└── unused (GET, HEAD) root
      • onRequest: anonymous
`, s.PrintRoutes(app.IncludeHooks()))
}

// What is wrong with a Provider's In struct is a start-up error, as for a
// reflective constructor (TestProvideRequestRefusesMalformedConstructors
// has the mistakes seen where it is provided).
func TestProviderRefusesMistakes(t *testing.T) {
	t.Parallel()
	type needsTenant struct {
		app.In
		T *tenant
	}
	missing := app.New()
	missing.ProvideRequest(app.Provider(func(context.Context, needsTenant) (*tx, func(bool) error, error) { return nil, nil, nil }))
	assert.ErrorContains(t, missing.Ready(), "request value *app_test.tx (provided in root): needs service *app_test.tenant")

	type takesBody struct {
		app.In
		B app.Body[string]
	}
	body := app.New()
	body.ProvideRequest(app.Provider(func(context.Context, takesBody) (*tx, func(bool) error, error) { return nil, nil, nil }))
	assert.ErrorContains(t, body.Ready(), "cannot be taken in a request-scoped constructor")

	type takesReply struct {
		app.In
		R *httpx.Reply
	}
	reply := app.New()
	reply.ProvideRequest(app.Provider(func(context.Context, takesReply) (*tx, func(bool) error, error) { return nil, nil, nil }))
	assert.ErrorContains(t, reply.Ready(), "request value *app_test.tx (provided in root): cannot take *httpx.Reply (field R)")

	type needsA struct {
		app.In
		A *cycleA
	}
	cycle := app.New()
	cycle.ProvideRequest(app.Provider(func(context.Context, needsA) (*cycleB, func(bool) error, error) { return nil, nil, nil }))
	cycle.ProvideRequest(func(*cycleB) *cycleA { return nil })
	assert.ErrorContains(t, cycle.Ready(), "request-scoped constructors need each other: "+
		"request value *app_test.cycleB (provided in root) needs request value *app_test.cycleA (provided in root) needs "+
		"request value *app_test.cycleB (provided in root)")
}

// visit is a request value that is not a pointer: a slot holds it in
// an interface, which would box it on every request.
type visit struct {
	user  string
	level int
}

func endVisit(bool) error { return nil }

// Not parallel: testing.AllocsPerRun counts the whole process's
// allocations. Request values built by Provider cost no allocation of
// Burrow's: the call is direct, the In struct pooled, and a value that is
// not a pointer is kept in a pooled cell instead of being boxed.
func TestProviderCostsNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector")
	}
	shared := &tenant{name: "acme"}
	s := app.New(app.WithLogger(zap.NewNop()), app.WithoutRequestLogging())
	require.NoError(t, s.ProvideRequest(app.Provider(func(context.Context, struct{}) (*tenant, func(bool) error, error) {
		return shared, nil, nil
	})))
	type visitIn struct {
		app.In
		T   *tenant
		Req *httpx.Request
	}
	require.NoError(t, s.ProvideRequest(app.Provider(func(_ context.Context, in visitIn) (visit, func(bool) error, error) {
		return visit{user: in.T.name, level: len(in.Req.Method())}, endVisit, nil
	})))
	type handlerIn struct {
		app.In
		S visit
		T *tenant
	}
	require.NoError(t, app.Get(s, "/values", func(_ context.Context, in handlerIn) (int, error) {
		if in.S.user != in.T.name {
			return 0, errors.New("not the tenant's visit")
		}
		return in.S.level, nil
	}))
	require.NoError(t, app.Get(s, "/none", func(context.Context, struct{}) (int, error) { return 3, nil }))
	require.NoError(t, s.Ready())
	assert.Equal(t, allocsPerRequest(t, s, "/none", "3"), allocsPerRequest(t, s, "/values", "3"))
}

// badJSON is a reply value whose encoding fails.
type badJSON struct{}

func (badJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("cannot encode") }

var errHookRefused = errors.New("hook refused")

// failSuccess is an OnSend hook that fails every reply but an error's.
func failSuccess(_ *httpx.Request, rep *httpx.Reply, b []byte) ([]byte, error) {
	if rep.Status() < 400 {
		return nil, errHookRefused
	}
	return b, nil
}

// TestRequestValueCleanupSeesSendFailures checks that the cleanups of a
// reply the framework sends run once the send hooks and the encoding
// have succeeded, right before the reply is written: a reply they fail
// is a failed request (the transaction rolls back), answered 500.
func TestRequestValueCleanupSeesSendFailures(t *testing.T) {
	t.Parallel()
	type txIn struct {
		app.In
		Tx *tx
	}
	tests := []struct {
		name  string
		setup func(s *app.Server) error
	}{
		{"a PreSerialization hook fails", func(s *app.Server) error {
			s.AddHook(app.PreSerialization, func(_ *httpx.Request, _ *httpx.Reply, v any) (any, error) {
				if _, ok := v.(newTodo); ok {
					return nil, errHookRefused
				}
				return v, nil
			})
			return app.Get(s, "/", func(context.Context, txIn) (newTodo, error) { return newTodo{Title: "milk"}, nil })
		}},
		{"an OnSend hook fails", func(s *app.Server) error {
			s.AddHook(app.OnSend, failSuccess)
			return app.Get(s, "/", func(context.Context, txIn) (newTodo, error) { return newTodo{Title: "milk"}, nil })
		}},
		{"an OnSend hook fails on NoContent", func(s *app.Server) error {
			s.AddHook(app.OnSend, failSuccess)
			return app.Get(s, "/", func(context.Context, txIn) (app.NoContent, error) { return app.NoContent{}, nil })
		}},
		{"an OnSend hook fails on an empty reply", func(s *app.Server) error {
			s.AddHook(app.OnSend, failSuccess)
			return s.Get("/", func(*tx) error { return nil })
		}},
		{"the encoding fails", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, txIn) (badJSON, error) { return badJSON{}, nil })
		}},
		{"the status is invalid", func(s *app.Server) error {
			return s.Get("/", func(rep *httpx.Reply, _ *tx) (string, error) {
				rep.Code(http.StatusEarlyHints)
				return "early", nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log txLog
			s := txServer(t, &log)
			require.NoError(t, tt.setup(s))
			status, _, _ := do(t, s, "GET", "/", "x-id", "a")
			assert.Equal(t, http.StatusInternalServerError, status)
			assert.Equal(t, []string{"rollback a"}, log.all())
		})
	}
}

// TestRequestValueCleanupSeesTheRequestTimeout: a handler that returns its
// value after the request time-out has its reply discarded (the client
// got 503), so its request failed: the transaction rolls back.
func TestRequestValueCleanupSeesTheRequestTimeout(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New(app.WithLogger(zap.NewNop()), app.WithRequestTimeout(time.Millisecond))
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	require.NoError(t, s.Get("/", func(ctx context.Context, _ *tx) (string, error) {
		<-ctx.Done()
		return "late", nil
	}))
	status, _, _ := do(t, s, "GET", "/", "x-id", "a")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, []string{"rollback a"}, log.all())
}
