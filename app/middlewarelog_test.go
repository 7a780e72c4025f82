package app_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

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
	return app.New(app.WithLogger(zap.New(core)), app.WithRequestLogging(true)), logs
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
	preflight := func(next http.Handler) http.Handler {
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
			return errors.Join(s.Use(preflight), s.Get("/cors", func() (string, error) { return "cors", nil }))
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
