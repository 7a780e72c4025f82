package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// via is one way to send a request to a server: Inject, or a real socket.
type via struct {
	name string
	// start makes s ready to serve and returns the function that sends
	// one request to it.
	start func(t *testing.T, s *app.Server) sender
}

// sender sends one request, with headers as name, value pairs, to the
// server a transport started.
type sender func(method, target string, header ...string) *apptest.Response

// starter makes a server ready over one transport and returns its sender.
type starter func(*app.Server) sender

var transports = []via{
	{"inject", func(t *testing.T, s *app.Server) sender {
		require.NoError(t, s.Ready())
		return func(method, target string, header ...string) *apptest.Response {
			return apptest.Do(t, s, method, target, nil, header...)
		}
	}},
	{"socket", func(t *testing.T, s *app.Server) sender {
		addr := serve(t, s)
		return func(method, target string, header ...string) *apptest.Response {
			req, err := http.NewRequest(method, "http://"+addr+target, nil)
			require.NoError(t, err)
			res, body := roundTrip(t, req, header...)
			return &apptest.Response{StatusCode: res.StatusCode, Header: res.Header, Body: body}
		}
	}},
}

// eachTransport runs fn as a parallel subtest per transport.
func eachTransport(t *testing.T, fn func(t *testing.T, start starter)) {
	t.Helper()
	for _, tp := range transports {
		t.Run(tp.name, func(t *testing.T) {
			t.Parallel()
			fn(t, func(s *app.Server) sender { return tp.start(t, s) })
		})
	}
}

// mark is a middleware that records its name, then calls next.
func (tr *trace) mark(name string) app.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tr.hook(name)()
			next.ServeHTTP(w, r)
		})
	}
}

func TestMiddlewareIsEncapsulatedAndOrderedLikeHooks(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		tr := &trace{}
		s := app.New()
		require.NoError(t, s.Use(tr.mark("root1")))
		require.NoError(t, s.AddHook(app.OnRequest, tr.hook("root.onRequest")))
		require.NoError(t, s.Get("/", tr.hook("root.handler")))
		require.NoError(t, s.Register(func(a *app.Server) error {
			if err := a.Get("/a", tr.hook("a.handler")); err != nil {
				return err
			}
			if err := a.Register(func(c *app.Server) error {
				return c.Get("/a/c", tr.hook("c.handler"))
			}); err != nil {
				return err
			}
			return a.Use(tr.mark("a1")) // after its routes and its child
		}, app.Name("a")))
		require.NoError(t, s.Register(func(b *app.Server) error {
			if err := b.SetNotFoundHandler(func(rep *httpx.Reply) error {
				tr.hook("b.notFound")()
				return rep.Code(404).Send("none")
			}); err != nil {
				return err
			}
			return b.Get("/b", tr.hook("b.handler"))
		}, app.Name("b"), app.Prefix("/b")))
		require.NoError(t, s.Use(tr.mark("root2"))) // after the plugins
		send := start(s)

		cases := []struct{ target, want string }{
			{"/", "root1 root2 root.onRequest root.handler"},
			{"/a", "root1 root2 a1 root.onRequest a.handler"},
			{"/a/c", "root1 root2 a1 root.onRequest c.handler"},
			{"/b/b", "root1 root2 root.onRequest b.handler"},
			{"/b/nothing", "root1 root2 root.onRequest b.notFound"},
			{"/nothing", "root1 root2 root.onRequest"},
		}
		for _, c := range cases {
			send("GET", c.target)
			assert.Equal(t, c.want, tr.take(), c.target)
		}
	})
}

func TestMiddlewareSeesPatternAndPathValues(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("x-pattern", r.Pattern)
				w.Header().Set("x-id", r.PathValue("id"))
				w.Header().Set("x-rest", r.PathValue("*"))
				next.ServeHTTP(w, r)
			})
		}))
		ok := func() (string, error) { return "ok", nil }
		require.NoError(t, s.Get("/items/:id", ok))
		require.NoError(t, s.Get("/files/*", ok))
		require.NoError(t, s.Register(func(p *app.Server) error { return p.Post("/", ok) }, app.Prefix("/v1")))
		send := start(s)
		cases := []struct{ method, target, pattern, id, rest string }{
			{"GET", "/items/7", "GET /items/{id}", "7", ""},
			{"GET", "/items/a%2Fb", "GET /items/{id}", "a/b", ""},
			{"HEAD", "/items/8", "GET /items/{id}", "8", ""},
			{"GET", "/files/a/b.txt", "GET /files/{*...}", "", "a/b.txt"},
			{"POST", "/v1/", "POST /v1", "", ""},
			{"GET", "/missing", "", "", ""},
		}
		for _, c := range cases {
			res := send(c.method, c.target)
			assert.Equal(t, c.pattern, res.Header.Get("x-pattern"), c.target)
			assert.Equal(t, c.id, res.Header.Get("x-id"), c.target)
			assert.Equal(t, c.rest, res.Header.Get("x-rest"), c.target)
		}
	})
}

// requireKey is a middleware that refuses with 403 a request without the
// header "x-key: k", without calling next.
func requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-key") != "k" {
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestMiddlewareThatAnswersEndsTheRequest(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		tr := &trace{}
		s := app.New()
		require.NoError(t, s.AddHook(app.OnRequest, tr.hook("onRequest")))
		require.NoError(t, s.AddHook(app.OnResponse, tr.hook("onResponse")))
		require.NoError(t, s.Use(requireKey))
		require.NoError(t, s.Get("/", func() (string, error) { tr.hook("handler")(); return "in", nil }))
		send := start(s)

		res := send("GET", "/")
		assert.Equal(t, http.StatusForbidden, res.StatusCode)
		assert.Equal(t, "refused\n", res.Body)
		assert.Equal(t, "onResponse", tr.take(), "only the onResponse hooks run after a middleware's answer")

		res = send("GET", "/", "x-key", "k")
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "in", res.Body)
		assert.Equal(t, "onRequest handler onResponse", tr.take())
	})
}

type ctxKey struct{}

func TestMiddlewareRequestReachesHooksAndHandler(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, "from middleware"))
				r.Header.Set("x-seen", "yes")
				next.ServeHTTP(w, r)
			})
		}))
		var fromHook string
		require.NoError(t, s.AddHook(app.OnRequest, func(ctx context.Context) {
			fromHook, _ = ctx.Value(ctxKey{}).(string)
		}))
		require.NoError(t, s.Get("/", func(req *httpx.Request) (string, error) {
			v, _ := req.Context().Value(ctxKey{}).(string)
			raw, _ := req.Raw().Context().Value(ctxKey{}).(string)
			return strings.Join([]string{v, raw, req.Header("x-seen")}, "|"), nil
		}))
		send := start(s)
		res := send("GET", "/")
		assert.Equal(t, "from middleware|from middleware|yes", res.Body)
		assert.Equal(t, "from middleware", fromHook)
	})
}

func TestMiddlewareErrors(t *testing.T) {
	t.Parallel()
	s := app.New()
	assert.ErrorIs(t, s.Use(nil), app.ErrInvalidHandler)

	s = app.New()
	require.NoError(t, s.Use(func(http.Handler) http.Handler { return nil }))
	require.NoError(t, s.Get("/", func() {}))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "returned a nil handler")
}

func TestMiddlewareMisuseIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mw     func(next http.Handler, w http.ResponseWriter, r *http.Request)
		status int
		ran    int
	}{
		{"context dropped", func(next http.Handler, w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.Background()))
		}, http.StatusInternalServerError, 0},
		{"next called twice", func(next http.Handler, w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			next.ServeHTTP(w, r)
		}, http.StatusOK, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			require.NoError(t, s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.mw(next, w, r) })
			}))
			ran := 0
			require.NoError(t, s.Get("/", func() { ran++ }))
			require.NoError(t, s.Ready())
			res := apptest.Do(t, s, "GET", "/", nil)
			assert.Equal(t, c.status, res.StatusCode)
			assert.Equal(t, c.ran, ran)
		})
	}
}

// bigKey holds a large value in a request's context.
type bigKey struct{}

// TestMiddlewareKeepingAContextPinsOnlyItsRequest: a middleware may keep
// the context of a request it saw (a background job, a span); that must
// keep alive that request and nothing of the others'. Each request's
// context carries a large value whose release is observed.
func TestMiddlewareKeepingAContextPinsOnlyItsRequest(t *testing.T) {
	t.Parallel()
	var kept context.Context
	s := app.New(app.WithLogger(zap.NewNop()))
	require.NoError(t, s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if kept == nil {
				kept = r.Context()
			}
			next.ServeHTTP(w, r)
		})
	}))
	require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }))
	require.NoError(t, s.Ready())

	const others = 20
	var freed atomic.Int32
	serve := func(count bool) {
		big := new([64 << 10]byte)
		if count {
			runtime.AddCleanup(big, func(*atomic.Int32) { freed.Add(1) }, &freed)
		}
		r := httptest.NewRequest("GET", "/", nil)
		r = r.WithContext(context.WithValue(r.Context(), bigKey{}, big))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		require.Equal(t, "ok", w.Body.String())
	}
	serve(false) // the request whose context the middleware keeps
	for range others {
		serve(true)
	}
	for i := 0; i < 100 && freed.Load() < others; i++ {
		runtime.GC() // the cleanups run on their own goroutine, after a cycle
		time.Sleep(time.Millisecond)
	}
	assert.EqualValues(t, others, freed.Load(), "the other requests' contexts are released")
	assert.NotNil(t, kept.Value(bigKey{}), "the kept context is whole")
}
