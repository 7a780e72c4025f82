package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
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

// accessLog finds the access log of the one request method path: its
// "incoming request" line, and the one "request completed" line with the
// same reqId and context, whose fields it returns.
func accessLog(t *testing.T, logs *observer.ObservedLogs, method, path string) map[string]any {
	t.Helper()
	incoming := logs.FilterMessage("incoming request").FilterField(zap.String("url", path)).
		FilterField(zap.String("method", method)).All()
	require.Len(t, incoming, 1, "one incoming request line")
	in := incoming[0].ContextMap()
	var completed []map[string]any
	for _, e := range logs.FilterMessage("request completed").All() {
		if m := e.ContextMap(); m["reqId"] == in["reqId"] && m["context"] == in["context"] {
			completed = append(completed, m)
		}
	}
	require.Len(t, completed, 1, "one request completed line with the incoming line's reqId")
	return completed[0]
}

// loggedServer is a server with request logging on, whose access log the
// test reads from logs.
func loggedServer() (*app.Server, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.InfoLevel)
	return app.New(app.WithLogger(zap.New(core))), logs
}

// onResponseStatuses records, by path, the status s's OnResponse hooks
// see; the function it returns reads one.
func onResponseStatuses(t *testing.T, s *app.Server) func(path string) int {
	var mu sync.Mutex
	seen := map[string]int{}
	require.NoError(t, s.AddHook(app.OnResponse, func(req *httpx.Request, rep *httpx.Reply) {
		mu.Lock()
		defer mu.Unlock()
		seen[req.Raw().URL.Path] = rep.Status()
	}))
	return func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return seen[path]
	}
}

// TestMiddlewareAnswerIsLoggedAndSeenByOnResponse: a request a middleware
// answers without calling next is in the access log with the status and
// size the client got, and the OnResponse hooks see that status; one that
// goes through is logged once, not once per layer.
func TestMiddlewareAnswerIsLoggedAndSeenByOnResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path string
		status     int
		size       int64
	}{
		{"refused by the middleware", "/refuse", http.StatusForbidden, int64(len("refused\n"))},
		{"middleware returns without writing", "/silent", http.StatusOK, 0},
		{"middleware writes a body only", "/body", http.StatusOK, int64(len("cached"))},
		{"through to the handler", "/through", http.StatusCreated, int64(len("made"))},
	}
	eachTransport(t, func(t *testing.T, start starter) {
		s, logs := loggedServer()
		seen := onResponseStatuses(t, s)
		require.NoError(t, s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/refuse":
					http.Error(w, "refused", http.StatusForbidden)
				case "/silent":
				case "/body":
					_, _ = io.WriteString(w, "cached")
				default:
					next.ServeHTTP(w, r)
				}
			})
		}))
		handler := func(rep *httpx.Reply) error { return rep.Code(http.StatusCreated).Send("made") }
		for _, tt := range tests {
			require.NoError(t, s.Get(tt.path, handler))
		}
		send := start(s)

		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := send("GET", tt.path)
				require.Equal(t, tt.status, res.StatusCode)

				fields := accessLog(t, logs, "GET", tt.path)
				assert.EqualValues(t, tt.status, fields["statusCode"])
				assert.EqualValues(t, tt.size, fields["responseSize"])
				assert.Equal(t, tt.status, seen(tt.path), "the status OnResponse saw")
			})
		}
	})
}

// TestNotAllowedIsLogged: a 405, and a preflight a middleware answers on
// a path with no route for its method, are in the access log with the
// status the client got, in the log of the context owning the path; no
// hook runs for them (no route matched).
func TestNotAllowedIsLogged(t *testing.T) {
	t.Parallel()
	// Unlike preflight below, it answers every OPTIONS request.
	answerOptions := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions {
				w.Header().Set("Access-Control-Allow-Origin", "*")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name, method, path, context string
		status                      int
	}{
		{"405 without middleware", "DELETE", "/plain", "root", http.StatusMethodNotAllowed},
		{"preflight answered by a middleware", "OPTIONS", "/cors", "root > corsContext", http.StatusNoContent},
		{"405 through a middleware", "DELETE", "/cors", "root > corsContext", http.StatusMethodNotAllowed},
	}
	eachTransport(t, func(t *testing.T, start starter) {
		s, logs := loggedServer()
		var hooks atomic.Int32
		require.NoError(t, s.AddHook(app.OnResponse, func() { hooks.Add(1) }))
		require.NoError(t, s.Get("/plain", func() (string, error) { return "plain", nil }))
		require.NoError(t, s.Register(func(s *app.Server) error {
			return errors.Join(s.Use(answerOptions), s.Get("/cors", func() (string, error) { return "cors", nil }))
		}, app.Name("corsContext")))
		send := start(s)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := send(tt.method, tt.path)
				require.Equal(t, tt.status, res.StatusCode)
				fields := accessLog(t, logs, tt.method, tt.path)
				assert.EqualValues(t, tt.status, fields["statusCode"])
				assert.Equal(t, int64(len(res.Body)), fields["responseSize"])
				assert.Equal(t, tt.context, fields["context"], "the log of the context owning the path")
			})
		}
		assert.Zero(t, hooks.Load(), "no hook runs for a request no route matched")
	})
}

// TestMiddlewareAnswerCleansUpRequestValues: a request value an
// onResponse hook builds, after a middleware answered without calling
// next, has its cleanup run like any other, failed for a refusal.
func TestMiddlewareAnswerCleansUpRequestValues(t *testing.T) {
	t.Parallel()
	var log txLog
	s := app.New()
	require.NoError(t, s.ProvideRequest(log.begin(nil)))
	require.NoError(t, s.AddHook(app.OnResponse, func(*tx) {}))
	require.NoError(t, s.Use(requireKey))
	require.NoError(t, s.Get("/", func() (string, error) { return "in", nil }))

	status, _, _ := do(t, s, "GET", "/", "x-id", "1")
	assert.Equal(t, http.StatusForbidden, status)
	status, _, _ = do(t, s, "GET", "/", "x-id", "2", "x-key", "k")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, []string{"rollback 1", "commit 2"}, log.all())
}

// TestTimeoutHandlerAsMiddleware: http.TimeoutHandler added with Use
// answers 503 when its time is up and returns while the route still
// runs; the access log and the OnResponse hooks report the 503 the
// client got, once the route has returned, and the server goes on
// serving. Run with -race.
func TestTimeoutHandlerAsMiddleware(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer()
	seen := make(chan int, 1)
	require.NoError(t, s.Get("/fast", func() (string, error) { return "fast", nil }))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(s.Use(timeoutMiddleware),
			s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen <- rep.Status() }),
			s.Get("/late", func(ctx context.Context) (string, error) {
				<-ctx.Done() // http.TimeoutHandler's time is up
				return "late", nil
			}))
	}))
	addr := serve(t, s)
	send := func(path string) (*http.Response, string) {
		req, err := http.NewRequest("GET", "http://"+addr+path, nil)
		require.NoError(t, err)
		return roundTrip(t, req)
	}
	for range 3 {
		res, body := send("/late")
		assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
		assert.Equal(t, "busy", body)
		assert.Equal(t, http.StatusServiceUnavailable, <-seen, "the status OnResponse saw")
		res, body = send("/fast")
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "fast", body)
	}
	incoming := logs.FilterMessage("incoming request").FilterField(zap.String("url", "/late")).All()
	require.Len(t, incoming, 3)
	for _, in := range incoming {
		completed := logs.FilterMessage("request completed").FilterField(zap.Any("reqId", in.ContextMap()["reqId"])).All()
		require.Len(t, completed, 1, "one request completed line with the incoming line's reqId")
		assert.EqualValues(t, http.StatusServiceUnavailable, completed[0].ContextMap()["statusCode"])
		assert.EqualValues(t, len("busy"), completed[0].ContextMap()["responseSize"])
	}
}

// panicky is a middleware that panics where the request's path says:
// before next, after next answered, or after next answered into a buffer
// of the middleware's that it never copies out.
func panicky(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/before":
			panic("middleware bug")
		case "/after":
			next.ServeHTTP(w, r)
			panic("middleware bug")
		case "/buffered":
			next.ServeHTTP(httptest.NewRecorder(), r)
			panic("middleware bug")
		}
		if r.Method == http.MethodOptions { // a path's 405
			panic("middleware bug")
		}
		next.ServeHTTP(w, r)
	})
}

// TestMiddlewarePanicIsAnswered: a panic in a middleware is answered as a
// handler's is, a bare 500 logged once with its stack, unless the client
// has its answer already (then it is logged); the access log and the
// OnResponse hooks report what the client got, and the server goes on
// serving.
func TestMiddlewarePanicIsAnswered(t *testing.T) {
	t.Parallel()
	const bare = `{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`
	tests := []struct {
		name, method, path string
		status             int
		body               string
	}{
		{"before next", "GET", "/before", http.StatusInternalServerError, bare},
		{"after next answered", "GET", "/after", http.StatusOK, "ok"},
		{"after next answered into a buffer", "GET", "/buffered", http.StatusInternalServerError, bare},
		{"in front of a 405", "OPTIONS", "/before", http.StatusInternalServerError, bare},
	}
	eachTransport(t, func(t *testing.T, start starter) {
		s, logs := loggedServer()
		seen := onResponseStatuses(t, s)
		require.NoError(t, s.Use(panicky))
		ok := func() (string, error) { return "ok", nil }
		require.NoError(t, errors.Join(s.Get("/before", ok), s.Get("/after", ok), s.Get("/buffered", ok), s.Get("/fine", ok)))
		send := start(s)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := send(tt.method, tt.path)
				assert.Equal(t, tt.status, res.StatusCode)
				assert.Equal(t, tt.body, res.Body)
				fields := accessLog(t, logs, tt.method, tt.path)
				assert.EqualValues(t, tt.status, fields["statusCode"])
				if tt.method == "GET" {
					assert.Equal(t, tt.status, seen(tt.path), "the status OnResponse saw")
				}
				assert.Equal(t, "ok", send("GET", "/fine").Body, "the server goes on serving")
			})
		}
		panics := logs.FilterMessage("panic: middleware bug").FilterLevelExact(zapcore.ErrorLevel).All()
		require.Len(t, panics, len(tests), "each panic logged once")
		for _, e := range panics {
			assert.Contains(t, e.ContextMap()["errorVerbose"], "panicky", "with the stack of the panic")
		}
	})
}

// TestMiddlewareAbortDropsTheResponse: panic(http.ErrAbortHandler) in a
// middleware is net/http's signal to drop the connection, and goes on to
// it; Inject reports it as an error.
func TestMiddlewareAbortDropsTheResponse(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithLogger(zap.NewNop()))
	require.NoError(t, s.Use(func(http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	}))
	require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }))
	require.NoError(t, s.Ready())
	_, err := s.Inject(httptest.NewRequest("GET", "/", nil))
	assert.ErrorIs(t, err, http.ErrAbortHandler)
}

// preflight answers a CORS preflight and passes anything else on.
func preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestPreflightAndNotAllowedReachTheContextsMiddleware(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		ok := func() (string, error) { return "ok", nil }
		s := app.New()
		require.NoError(t, s.Get("/", ok))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Get("/items/:id", ok); err != nil {
				return err
			}
			return p.Use(preflight)
		}, app.Prefix("/cors")))
		require.NoError(t, s.Register(func(p *app.Server) error { return p.Get("/items/:id", ok) }, app.Prefix("/plain")))
		send := start(s)

		pre := []string{"Origin", "http://example.com", "Access-Control-Request-Method", "GET"}
		cases := []struct {
			method, target string
			header         []string
			status         int
			allowOrigin    string
			allow          string
		}{
			{"OPTIONS", "/cors/items/1", pre, http.StatusNoContent, "*", ""},
			{"OPTIONS", "/cors/items/1", nil, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"DELETE", "/cors/items/1", nil, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"OPTIONS", "/plain/items/1", pre, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"OPTIONS", "/", pre, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"GET", "/cors/items/1", pre, http.StatusOK, "", ""},
		}
		for _, c := range cases {
			res := send(c.method, c.target, c.header...)
			name := c.method + " " + c.target
			assert.Equal(t, c.status, res.StatusCode, name)
			assert.Equal(t, c.allowOrigin, res.Header.Get("Access-Control-Allow-Origin"), name)
			assert.Equal(t, c.allow, res.Header.Get("Allow"), name)
		}
	})
}

func TestNotAllowedOwnerIsTheFirstRoutesContext(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		tr := &trace{}
		ok := func() {}
		s := app.New()
		require.NoError(t, s.Use(tr.mark("root")))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Use(tr.mark("p")); err != nil {
				return err
			}
			if err := p.Get("/shared", ok); err != nil {
				return err
			}
			return p.Get("/siblings", ok)
		}, app.Name("p")))
		require.NoError(t, s.Register(func(q *app.Server) error {
			if err := q.Use(tr.mark("q")); err != nil {
				return err
			}
			return q.Post("/siblings", ok)
		}, app.Name("q")))
		// Registered after the plugin, but the root's routes come first:
		// the root owns /shared.
		require.NoError(t, s.Post("/shared", ok))
		send := start(s)

		cases := []struct{ method, target, trace string }{
			{"DELETE", "/shared", "root"},     // the root's route is first
			{"GET", "/shared", "root p"},      // routes keep their own context
			{"DELETE", "/siblings", "root p"}, // p was registered before q
			{"POST", "/siblings", "root q"},
		}
		for _, c := range cases {
			send(c.method, c.target)
			assert.Equal(t, c.trace, tr.take(), c.method+" "+c.target)
		}
	})
}

// A middleware that answers itself (a cache, static files) writes a reply
// like any other: a client that reads nothing of it loses its connection
// at the reply time-out, whether the middleware writes, copies or answers
// a method the path has no route for.
func TestSlowReaderOfAMiddlewaresAnswerIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 64<<20) // far more than both sockets' buffers hold
	for _, tc := range []struct {
		name, request string
	}{
		{"written", "GET /written HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"copied", "GET /copied HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"for a 405", "DELETE /written HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := app.New(app.WithReplyTimeout(200 * time.Millisecond))
			require.NoError(t, s.Use(func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/copied" {
						_, _ = io.Copy(w, bytes.NewReader(big))
						return
					}
					_, _ = w.Write(big)
				})
			}))
			for _, path := range []string{"/written", "/copied"} {
				require.NoError(t, s.Get(path, func() (string, error) { return "not the middleware's", nil }))
			}
			closedWhen(t, s, "", tc.request, "a client that reads nothing of a middleware's answer "+tc.name)
		})
	}
}

// TestMiddlewaresAnswerIsArmedOnce: the reply time-out is armed once, at
// the first write a middleware makes itself, unless it set a write
// deadline of its own before; an informational status (103 Early Hints)
// arms nothing, as the reply has not begun. What its next writes is the
// reply's (armed when it is sent) or the handler's, whose own deadline
// stays.
func TestMiddlewaresAnswerIsArmedOnce(t *testing.T) {
	t.Parallel()
	own := time.Now().Add(time.Hour)
	s := app.New(app.WithReplyTimeout(time.Minute))
	setOwn := func(w http.ResponseWriter) bool {
		if err := http.NewResponseController(w).SetWriteDeadline(own); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return false
		}
		return true
	}
	require.NoError(t, s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/middleware/own":
				if !setOwn(w) {
					return
				}
				fallthrough
			case "/middleware":
				_, _ = io.WriteString(w, "a")
				_, _ = io.WriteString(w, "b")
			case "/hints":
				w.Header().Set("Link", "</style.css>; rel=preload")
				w.WriteHeader(http.StatusEarlyHints)
				next.ServeHTTP(w, r)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}))
	require.NoError(t, s.Get("/handler", func() (string, error) { return "ab", nil }))
	require.NoError(t, s.Get("/hints", func() (string, error) { return "ab", nil }))
	require.NoError(t, s.Get("/handler/own", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if setOwn(w) {
			_, _ = io.WriteString(w, "a")
			_, _ = io.WriteString(w, "b")
		}
	})))
	require.NoError(t, s.Get("/middleware", func() (string, error) { return "not the middleware's", nil }))
	require.NoError(t, s.Get("/middleware/own", func() (string, error) { return "not the middleware's", nil }))
	require.NoError(t, s.Ready())
	for _, path := range []string{"/middleware", "/middleware/own", "/handler", "/handler/own", "/hints"} {
		w := &writeDeadlines{ResponseRecorder: httptest.NewRecorder()}
		before := time.Now()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		require.Contains(t, w.Body.String(), "ab", path)
		require.Len(t, w.set, 1, path)
		if strings.HasSuffix(path, "/own") {
			assert.Equal(t, own, w.set[0], "%s: the own deadline is not replaced", path)
		} else {
			assert.False(t, w.set[0].Before(before.Add(time.Minute)), "%s: the reply time-out from the first write: %v", path, w.set[0])
		}
	}
}
