package app_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app"
)

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
