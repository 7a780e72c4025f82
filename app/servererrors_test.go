package app_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

const internalError = `{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`

// A panic is a bug in the server: whatever its value, the client gets a
// bare 500, and the value goes to the log once, at error level, with the
// stack of the panic.
func TestPanicValuesNeverReachClients(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(s *app.Server)
	}{
		{"a string in a handler", func(s *app.Server) {
			s.Get("/", func() error { panic("secret /var/lib/app/db.sqlite") })
		}},
		{"an error in a handler", func(s *app.Server) {
			s.Get("/", func() error { panic(errors.New("secret: dial tcp 10.0.0.7:5432")) })
		}},
		{"an *httpx.Error in a handler", func(s *app.Server) {
			s.Get("/", func() error { panic(httpx.NewError(http.StatusBadRequest, "E_SECRET", "secret")) })
		}},
		{"an onRequest hook", func(s *app.Server) {
			s.AddHook(app.OnRequest, func() { panic("secret in a hook") })
			s.Get("/", func() (string, error) { return "unreached", nil })
		}},
		{"an error handler", func(s *app.Server) {
			s.SetErrorHandler(func(err error) error { panic("secret in the error handler") })
			s.Get("/", func() error { return httpx.NewError(http.StatusBadRequest, "", "bad") })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)), app.WithRequestLogging(false))
			tt.setup(s)
			status, body, _ := do(t, s, "GET", "/")
			assert.Equal(t, http.StatusInternalServerError, status)
			assert.Equal(t, internalError, body)

			errs := logs.FilterLevelExact(zapcore.ErrorLevel).FilterFieldKey("reqId").All()
			require.Len(t, errs, 1, "one error-level line per panic")
			fields := errs[0].ContextMap()
			assert.Contains(t, errs[0].Message, "secret", "the log has the value")
			assert.Contains(t, fields["errorVerbose"], "servererrors_test.go", "and the stack of the panic")
		})
	}
}

// WithServerErrorMessages(false) replaces the message of every 5xx the
// default error handler sends by its status text; the log keeps the error.
func TestServerErrorMessagesCanBeHidden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		err          error
		status       int
		shown, given string // the body with messages shown (the default) and hidden
	}{
		{"a plain error", errors.New("pq: password authentication failed for user app"), 500,
			`{"statusCode":500,"error":"Internal Server Error","message":"pq: password authentication failed for user app"}`,
			internalError},
		{"a 503 with a code", httpx.NewError(http.StatusServiceUnavailable, "E_DOWN", "db at 10.0.0.3 is down"), 503,
			`{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"db at 10.0.0.3 is down"}`,
			`{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"Service Unavailable"}`},
		{"a 4xx is the client's to read", httpx.NewError(http.StatusConflict, "E_TAKEN", "name is taken"), 409,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"name is taken"}`,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"name is taken"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, show := range []bool{true, false} {
				core, logs := observer.New(zapcore.DebugLevel)
				s := app.New(app.WithLogger(zap.New(core)), app.WithRequestLogging(false), app.WithServerErrorMessages(show))
				s.Get("/", func() error { return tt.err })
				status, body, _ := do(t, s, "GET", "/")
				assert.Equal(t, tt.status, status)
				want := tt.given
				if show {
					want = tt.shown
				}
				assert.Equal(t, want, body, "messages shown: %v", show)
				logged := logs.FilterFieldKey("reqId").All()
				require.Len(t, logged, 1)
				assert.Equal(t, tt.err.Error(), logged[0].Message, "the log keeps the whole error")
			}
		})
	}
}

// Whatever a client sends, the server does not log at error level: its
// mistakes are 4xx answers, logged at info, and net/http's own lines go
// to the logger at info. Each case here is a request a client can repeat
// at will.
func TestClientInputIsNeverAnError(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	s := app.New(app.WithLogger(zap.New(core, zap.AddStacktrace(zapcore.ErrorLevel))),
		app.WithBodyTimeout(100*time.Millisecond), app.WithMaxHeaderBytes(4<<10))
	s.Post("/users", func(b app.Body[newUser]) (newUser, error) { return b.Value, nil }, app.BodyLimit(1<<10))
	s.Get("/search", func(q app.Query[search]) (string, error) { return q.Value.Q, nil })
	s.Get("/items/:id", func(p app.Params[itemParams]) (int, error) { return p.Value.ID, nil })
	addr := serve(t, s)

	post := func(ctype, body string) string {
		return fmt.Sprintf("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", ctype, len(body), body)
	}
	requests := []string{
		"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
		"DELETE /search HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /items/%zz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /items/x HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /items/0 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /search?limit=many HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /search HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n",
		post("application/json", `{"name":`),
		post("application/json", `{"name":"ab","name":"cd"}`),
		post("application/json", strings.Repeat("[", 200)),
		post("application/json", `{"name":"ab"} trailing`),
		post("application/json", `{"age":"old"}`),
		post("application/json", `{}`),
		post("application/json", ""),
		post("application/json", `{"name":"`+strings.Repeat("a", 2<<10)+`"}`),
		post("application/xml", `<user/>`),
		"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na", // slow, then silent
		"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"nam\r\nzz\r\n",
	}
	for _, tc := range framingCases {
		requests = append(requests, strings.ReplaceAll(tc.raw, "/echo", "/users"))
	}
	for _, raw := range requests {
		got := rawExchange(t, addr, raw)
		assert.True(t, got.code == 0 || got.code >= 400 && got.code < 500 || got.code == 501 || got.code == 505,
			"%d for %.60q", got.code, raw)
	}
	// A client that goes away mid-body.
	c := dial(t, addr)
	_, err := io.WriteString(c, "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)
	require.NoError(t, c.Close())

	require.NoError(t, s.Close(t.Context()))
	for _, e := range logs.All() {
		assert.Less(t, e.Level, zapcore.ErrorLevel, "%s %v", e.Message, e.ContextMap())
	}
}
