package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
			s := app.New(app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
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

// By default, a 5xx answering an error the handler did not make an
// *httpx.Error says its status text, keeping status and code: the
// error's own text, written for logs, may name a driver, a host, a path.
// An *httpx.Error's message was written for the client and is sent.
// WithServerErrorMessages(true) sends every message; the log always
// keeps the whole error.
func TestServerErrorMessagesAreHiddenByDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		err           error
		status        int
		hidden, shown string // the body by default and with WithServerErrorMessages(true)
	}{
		{"a plain error", errors.New("SQL logic error: no such table: bookmarks (1)"), 500,
			internalError,
			`{"statusCode":500,"error":"Internal Server Error","message":"SQL logic error: no such table: bookmarks (1)"}`},
		{"a wrapped plain error", fmt.Errorf("loading bookmarks: %w", errors.New("dial tcp 10.0.0.7:5432: refused")), 500,
			internalError,
			`{"statusCode":500,"error":"Internal Server Error","message":"loading bookmarks: dial tcp 10.0.0.7:5432: refused"}`},
		{"an *httpx.Error's 5xx message is its author's", httpx.NewError(http.StatusServiceUnavailable, "E_DOWN", "database unavailable"), 503,
			`{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"database unavailable"}`,
			`{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"database unavailable"}`},
		{"an *httpx.Error wrapped", fmt.Errorf("store: %w", httpx.NewError(http.StatusBadGateway, "E_UPSTREAM", "the mail service failed")), 502,
			`{"statusCode":502,"code":"E_UPSTREAM","error":"Bad Gateway","message":"the mail service failed"}`,
			`{"statusCode":502,"code":"E_UPSTREAM","error":"Bad Gateway","message":"the mail service failed"}`},
		{"a 4xx is the client's to read", httpx.NewError(http.StatusConflict, "E_TAKEN", "name is taken"), 409,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"name is taken"}`,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"name is taken"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			off, on := false, true
			for _, show := range []*bool{nil, &off, &on} {
				core, logs := observer.New(zapcore.DebugLevel)
				opts := []app.Option{app.WithLogger(zap.New(core)), app.WithoutRequestLogging()}
				want := tt.hidden
				if show != nil {
					opts = append(opts, app.WithServerErrorMessages(*show))
					if *show {
						want = tt.shown
					}
				}
				s := app.New(opts...)
				s.Get("/", func() error { return tt.err })
				s.Get("/send", func(rep *httpx.Reply) error { return rep.SendError(tt.err) })
				status, body, _ := do(t, s, "GET", "/")
				assert.Equal(t, tt.status, status)
				assert.Equal(t, want, body, "messages shown: %v", show)
				_, body, _ = do(t, s, "GET", "/send")
				assert.Equal(t, want, body, "SendError, messages shown: %v", show)
				logged := logs.FilterFieldKey("reqId").All()
				require.NotEmpty(t, logged)
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

// A 5xx's message does not repeat the text of its cause: httpx.Errorf's
// %w puts the driver's words in the message, which the client does not
// read (it gets the status text, as for any error written for logs),
// while the log keeps them. A cause the message does not repeat is
// logged beside it. WithServerErrorText sends the whole message.
func TestAWrappedCausesTextStaysOutOfA5xx(t *testing.T) {
	t.Parallel()
	driver := errors.New(`pq: relation "users" does not exist`)
	dial := errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")
	tests := []struct {
		name   string
		err    error
		status int
		body   string // by default; with WithServerErrorText, each message is sent
	}{
		{"Errorf with %w", httpx.Errorf(500, "loading user %d: %w", 7, driver), 500, internalError},
		{"Errorf with two %w", httpx.Errorf(http.StatusBadGateway, "mail: %w, then %w", dial, driver), 502,
			`{"statusCode":502,"error":"Bad Gateway","message":"Bad Gateway"}`},
		{"Errorf with %w, wrapped", fmt.Errorf("handler: %w", httpx.Errorf(503, "loading: %w", dial)), 503,
			`{"statusCode":503,"error":"Service Unavailable","message":"Service Unavailable"}`},
		{"Errorf with a status below 400", httpx.Errorf(200, "loading: %w", driver), 500, internalError},
		{"a message that repeats its cause", &httpx.Error{StatusCode: 500, Code: "E_LOAD", Message: "loading: " + driver.Error(), Err: driver}, 500,
			`{"statusCode":500,"code":"E_LOAD","error":"Internal Server Error","message":"Internal Server Error"}`},
		{"a message of its own, the cause apart", &httpx.Error{StatusCode: 503, Code: "E_DOWN", Message: "database unavailable", Err: dial}, 503,
			`{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"database unavailable"}`},
		{"Errorf without a cause", httpx.Errorf(503, "try again in %d s", 5), 503,
			`{"statusCode":503,"error":"Service Unavailable","message":"try again in 5 s"}`},
		{"a 4xx's cause is the client's to read", httpx.Errorf(400, "bad page: %w", strconvErr()), 400,
			`{"statusCode":400,"error":"Bad Request","message":"bad page: strconv.Atoi: parsing \"x\": invalid syntax"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, show := range []bool{false, true} {
				core, logs := observer.New(zapcore.DebugLevel)
				opts := []app.Option{app.WithLogger(zap.New(core)), app.WithoutRequestLogging()}
				if show {
					opts = append(opts, app.WithServerErrorText())
				}
				s := app.New(opts...)
				s.Get("/", func() error { return tt.err })
				s.Get("/send", func(rep *httpx.Reply) error { return rep.SendError(tt.err) })
				require.NoError(t, s.Ready())
				srv := httptest.NewServer(s)
				defer srv.Close()
				for _, path := range []string{"/", "/send"} {
					res, err := http.Get(srv.URL + path)
					require.NoError(t, err)
					b, err := io.ReadAll(res.Body)
					res.Body.Close()
					require.NoError(t, err)
					assert.Equal(t, tt.status, res.StatusCode)
					want := tt.body
					if show {
						shown, err := json.Marshal(httpx.BodyOf(tt.err))
						require.NoError(t, err)
						want = string(shown)
					}
					assert.Equal(t, want, string(b), "%s, text shown: %v", path, show)
				}
				if tt.status < 500 {
					continue
				}
				logged := logs.FilterLevelExact(zapcore.ErrorLevel).FilterFieldKey("reqId").All()
				require.NotEmpty(t, logged)
				line := fmt.Sprint(logged[0].Message, logged[0].ContextMap())
				assert.Contains(t, line, tt.err.Error(), "the log keeps the whole error")
				var he *httpx.Error
				if errors.As(tt.err, &he) && he.Err != nil {
					assert.Contains(t, line, he.Err.Error(), "and its cause")
				}
			}
		})
	}
}

func strconvErr() error {
	_, err := strconv.Atoi("x")
	return err
}
