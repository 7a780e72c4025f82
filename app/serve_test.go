package app_test

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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

func TestNotReadyAnswers503(t *testing.T) {
	t.Parallel()
	s := app.New()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.JSONEq(t, `{"statusCode":503,"error":"Service Unavailable","message":"Server is not ready"}`, w.Body.String())
}

func TestRequestIDHeader(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestIDHeader("X-Request-Id"))
	s.Get("/", func(req *httpx.Request) (string, error) { return req.ID(), nil })
	for _, tt := range []struct {
		sent, want string
	}{
		{"3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70", "3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70"},
		{"trace:01HZX.ab_c", "trace:01HZX.ab_c"},
		{"", "req-"},
		{strings.Repeat("a", 129), "req-"},
		{"has space", "req-"},
		{"quote\"d", "req-"},
	} {
		_, body, _ := do(t, s, "GET", "/", "X-Request-Id", tt.sent)
		if tt.want == "req-" {
			assert.True(t, strings.HasPrefix(body, "req-"), "%q gave %q", tt.sent, body)
		} else {
			assert.Equal(t, tt.want, body)
		}
	}
}

// panicMarshal panics when encoding/json encodes it.
type panicMarshal struct{}

func (panicMarshal) MarshalJSON() ([]byte, error) { panic("MarshalJSON panicked") }

// panicAppend panics when it is asked to append itself.
type panicAppend struct{}

func (panicAppend) AppendJSON([]byte) ([]byte, error) { panic("AppendJSON panicked") }

// user is the type a route's preSerialization hook expects.
type user struct {
	Name string `json:"name"`
}

// sendPanics is every way sending can panic, each a server whose GET /
// counts its handler's runs. want is what the answer's body contains: the
// panic, or the handler's own error when a hook panicked on the error
// reply (which is then sent without that hook). The hooks let /ok
// through, for the socket test's other requests.
func sendPanics() []struct {
	name  string
	build func(runs *atomic.Int32, opts ...app.Option) *app.Server
	path  string
	want  string
} {
	count := func(runs *atomic.Int32, v any) func() (any, error) {
		return func() (any, error) { runs.Add(1); return v, nil }
	}
	// onSendPanics lets /ok through and panics on every other path.
	onSendPanics := func(req *httpx.Request, _ *httpx.Reply, b []byte) ([]byte, error) {
		if req.URL().Path == "/ok" {
			return b, nil
		}
		panic("onSend panicked")
	}
	// userName panics on any payload that is not a user.
	userName := func(_ *httpx.Request, _ *httpx.Reply, p any) (any, error) { return p.(user).Name, nil }
	// returns builds a server whose only route returns v.
	returns := func(v any) func(*atomic.Int32, ...app.Option) *app.Server {
		return func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.Get("/", count(runs, v))
			return s
		}
	}
	// sends builds a server whose only route sends v with status code.
	sends := func(code int, v any) func(*atomic.Int32, ...app.Option) *app.Server {
		return func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.Get("/", func(rep *httpx.Reply) error { runs.Add(1); return rep.Code(code).Send(v) })
			return s
		}
	}
	return []struct {
		name  string
		build func(runs *atomic.Int32, opts ...app.Option) *app.Server
		path  string
		want  string
	}{
		{"MarshalJSON", returns(panicMarshal{}), "/", "MarshalJSON panicked"},
		{"AppendJSON", returns(panicAppend{}), "/", "AppendJSON panicked"},
		{"preSerialization hook", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.PreSerialization, func(req *httpx.Request, _ *httpx.Reply, p any) (any, error) {
				if req.URL().Path == "/ok" {
					return p, nil
				}
				panic("preSerialization panicked")
			})
			s.Get("/", count(runs, user{"a"}))
			return s
		}, "/", "preSerialization panicked"},
		{"onSend hook", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.OnSend, onSendPanics)
			s.Get("/", count(runs, user{"a"}))
			return s
		}, "/", "onSend panicked"},
		{"onSend hook, handler sent nothing", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.OnSend, onSendPanics)
			s.Get("/", func() { runs.Add(1) })
			return s
		}, "/", "onSend panicked"},
		{"status above 999", sends(1000, "x"), "/", "invalid status code 1000"},
		{"status 0", sends(0, user{"a"}), "/", "invalid status code 0"},
		{"informational status", sends(103, "x"), "/", "invalid status code 103"},
		{"preSerialization type assertion on a 404", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.PreSerialization, userName)
			s.AddHook(app.OnRequest, func(req *httpx.Request) {
				if req.URL().Path == "/missing" {
					runs.Add(1)
				}
			})
			s.Get("/", count(runs, user{"a"}))
			return s
		}, "/missing", "interface conversion"},
		{"preSerialization panics on the error body", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.PreSerialization, userName)
			s.Get("/", func() (any, error) { runs.Add(1); return nil, errors.New("handler failed") })
			return s
		}, "/", "handler failed"},
		{"onSend panics on the error body", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.AddHook(app.OnSend, func(_ *httpx.Request, rep *httpx.Reply, b []byte) ([]byte, error) {
				if rep.Status() >= 400 {
					panic("onSend panicked on an error")
				}
				return b, nil
			})
			s.Get("/", func() (any, error) { runs.Add(1); return nil, errors.New("handler failed") })
			return s
		}, "/", "handler failed"},
		{"error handler sends a panicking value", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.SetErrorHandler(func(rep *httpx.Reply) error { return rep.Code(502).Send(panicMarshal{}) })
			s.Get("/", func() (any, error) { runs.Add(1); return nil, errors.New("handler failed") })
			return s
		}, "/", "MarshalJSON panicked"},
		{"error handler sets an invalid status", func(runs *atomic.Int32, opts ...app.Option) *app.Server {
			s := app.New(opts...)
			s.SetErrorHandler(func(rep *httpx.Reply) { rep.Code(1234) })
			s.Get("/", func() (any, error) { runs.Add(1); return nil, errors.New("handler failed") })
			return s
		}, "/", "invalid status code 1234"},
	}
}

// TestPanicWhileSendingAnswers500 sends through every panicking encoder
// and hook: each answer is a 500 from the error path (never 200 with an
// empty body, a dropped connection or a panic out of Inject), the
// handler runs once, and the next request is served.
func TestPanicWhileSendingAnswers500(t *testing.T) {
	t.Parallel()
	// The panic is in the body or, where panic values are kept from
	// clients, in the log.
	check := func(t *testing.T, res *http.Response, runs *atomic.Int32, logs *observer.ObservedLogs, want string) {
		t.Helper()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusInternalServerError, res.StatusCode, string(b))
		assert.Contains(t, string(b), `"statusCode":500`)
		said := string(b)
		for _, e := range logs.All() {
			said += "\n" + e.Message
			for _, f := range e.Context {
				if err, ok := f.Interface.(error); ok {
					said += "\n" + err.Error()
				}
			}
		}
		assert.Contains(t, said, want)
		assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
		assert.Equal(t, int32(1), runs.Load(), "the handler ran once")
	}
	for _, tt := range sendPanics() {
		t.Run("inject/"+tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			core, logs := observer.New(zapcore.DebugLevel)
			s := tt.build(&runs, app.WithLogger(zap.New(core)))
			var res *http.Response
			require.NotPanics(t, func() {
				var err error
				res, err = s.Inject(httptest.NewRequest("GET", tt.path, nil))
				require.NoError(t, err)
			})
			defer res.Body.Close()
			check(t, res, &runs, logs, tt.want)
		})
		t.Run("socket/"+tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			core, logs := observer.New(zapcore.DebugLevel)
			s := tt.build(&runs, app.WithLogger(zap.New(core)))
			s.Get("/ok", func() (string, error) { return "ok", nil })
			addr := serve(t, s)
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			// A kept-alive connection first: Go's client retries a GET
			// whose reused connection drops, which ran the handler twice.
			res, err := client.Get("http://" + addr + "/ok")
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)

			res, err = client.Get("http://" + addr + tt.path)
			require.NoError(t, err, "the connection must not drop")
			defer res.Body.Close()
			check(t, res, &runs, logs, tt.want)

			res, err = client.Get("http://" + addr + "/ok")
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusOK, res.StatusCode, "the next request is served")
		})
	}
}

// TestOnSendMayKeepTheBody: the body an onSend hook gets is its own (an
// async logger or a cache may keep it); it used to be the reply's pooled
// buffer, rewritten by the next reply.
func TestOnSendMayKeepTheBody(t *testing.T) {
	t.Parallel()
	var kept [][]byte
	s := app.New()
	s.AddHook(app.OnSend, func(_ *httpx.Request, _ *httpx.Reply, b []byte) ([]byte, error) {
		kept = append(kept, b)
		return b, nil
	})
	s.Get("/json/:n", func(req *httpx.Request) (any, error) { return map[string]string{"n": req.Param("n")}, nil })
	s.Get("/text/:n", func(req *httpx.Request) (any, error) { return "text " + req.Param("n"), nil })
	var want []string
	for i := range 20 {
		n := strconv.Itoa(i)
		_, body, _ := do(t, s, "GET", "/json/"+n)
		want = append(want, body)
		_, body, _ = do(t, s, "GET", "/text/"+n)
		want = append(want, body)
	}
	got := make([]string, len(kept))
	for i, b := range kept {
		got[i] = string(b)
	}
	assert.Equal(t, want, got)
}

// TestRequestAndReplyKeptPastTheHandlerPanic: a *httpx.Request or
// *httpx.Reply kept after its handler returned fails loudly, with a
// message naming the mistake, instead of reading the next request's data
// (or writing into its response).
func TestRequestAndReplyKeptPastTheHandlerPanic(t *testing.T) {
	t.Parallel()
	var keptReq *httpx.Request
	var keptRep *httpx.Reply
	s := app.New()
	s.Get("/keep/:id", func(req *httpx.Request, rep *httpx.Reply) error {
		keptReq, keptRep = req, rep
		return rep.Send(req.Param("id"))
	})
	_, body, _ := do(t, s, "GET", "/keep/1")
	require.Equal(t, "1", body)
	first, firstRep := keptReq, keptRep
	_, body, _ = do(t, s, "GET", "/keep/2") // served with the same buffers
	require.Equal(t, "2", body)

	const reqMsg = "httpx.Request used after its handler returned; " +
		"keep the values a goroutine needs (ID, headers, decoded input, context, logger), not the *httpx.Request"
	const repMsg = "httpx.Reply used after its handler returned; a reply is sent before the handler (or the hook) returns"
	for name, use := range map[string]func(){
		"Param":     func() { first.Param("id") },
		"Header":    func() { first.Header("X-Any") },
		"ID":        func() { first.ID() },
		"Query":     func() { first.Query("q") },
		"Log":       func() { first.Log() },
		"Decorator": func() { first.Decorator("x") },
	} {
		assert.PanicsWithError(t, reqMsg, use, name)
	}
	assert.PanicsWithError(t, repMsg, func() { _ = firstRep.Send("late") })
	assert.PanicsWithError(t, repMsg, func() { firstRep.Header() })
}

// TestPanickingSendHookIsSkippedForTheErrorReply: the error reply runs
// the route's send hooks except the one that panicked, which does not
// run again.
func TestPanickingSendHookIsSkippedForTheErrorReply(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	s := app.New()
	s.AddHook(app.PreSerialization, func(_ *httpx.Request, _ *httpx.Reply, p any) (any, error) {
		calls.Add(1)
		return p.(user), nil // panics on anything else
	})
	s.AddHook(app.OnSend, func(_ *httpx.Request, rep *httpx.Reply, b []byte) ([]byte, error) {
		rep.SetHeader("X-On-Send", "ran")
		return b, nil
	})
	s.Get("/", func() (any, error) { return map[string]int{"a": 1}, nil })
	status, body, h := do(t, s, "GET", "/")
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Contains(t, body, `"statusCode":500`)
	assert.Equal(t, int32(1), calls.Load(), "the panicking hook ran once")
	assert.Equal(t, "ran", h.Get("X-On-Send"), "the other send hooks still run")
}

// TestErrorAfterAClientLeftIsNotAnError: a stream whose client went away
// ends with an error (the write's, or the context's), which the handler
// returns; that is the client's doing, so it is logged at debug, or every
// client that drops a stream would write an error line. An error after a
// reply the client still reads is the server's, logged at error.
func TestErrorAfterAClientLeftIsNotAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		leave func(t *testing.T, s *app.Server) // asks for /stream, reads a little, leaves
	}{
		{"inject", func(t *testing.T, s *app.Server) {
			res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/stream", nil))
			require.NoError(t, err)
			_, err = io.ReadFull(res.Body, make([]byte, 5))
			require.NoError(t, err)
			require.NoError(t, res.Body.Close())
		}},
		{"socket", func(t *testing.T, s *app.Server) {
			c := dial(t, serve(t, s))
			_, err := io.WriteString(c, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			_, err = bufio.NewReader(c).ReadString('\n')
			require.NoError(t, err)
			require.NoError(t, c.Close())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			done := make(chan struct{}, 1)
			require.NoError(t, s.AddHook(app.OnResponse, func() { done <- struct{}{} }))
			require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
				return rep.Stream(endless{})
			}))
			require.NoError(t, s.Get("/late", func(rep *httpx.Reply) error {
				if err := rep.Send("sent"); err != nil {
					return err
				}
				return errors.New("the audit write failed")
			}))
			tt.leave(t, s)
			<-done
			after := logs.FilterMessage("error after the reply was sent")
			require.Equal(t, 1, after.Len(), "logged once: %v", logs.All())
			assert.Equal(t, zapcore.DebugLevel, after.All()[0].Level, "the client left: %v", after.All()[0].ContextMap())

			status, body, _ := do(t, s, "GET", "/late")
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "sent", body)
			<-done
			late := logs.FilterMessage("error after the reply was sent").FilterLevelExact(zapcore.ErrorLevel).All()
			require.Len(t, late, 1, "the server's own failure is an error")
			assert.Equal(t, "the audit write failed", late[0].ContextMap()["error"])
		})
	}
}

// A refused request (4xx) is the client's doing: it is logged at debug,
// with its status and reason, so that a flood of bad requests writes no
// line at the levels servers run at. A 5xx stays at error.
func TestRefusalsAreLoggedAtDebug(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body    string
		status  int
		level   zapcore.Level
		message string
	}{
		{`{"tags":["go"]}`, http.StatusBadRequest, zapcore.DebugLevel, "400 FST_ERR_VALIDATION: body/message is required"},
		{`{"message":`, http.StatusBadRequest, zapcore.DebugLevel, "400 FST_ERR_CTP_INVALID_JSON_BODY: unexpected end of JSON input"},
		{`{"message":"fail"}`, http.StatusInternalServerError, zapcore.ErrorLevel, "the database is down"},
	} {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			require.NoError(t, s.Post("/echo", func(b app.Body[echoBody]) (echoBody, error) {
				if b.Value.Message == "fail" {
					return echoBody{}, assert.AnError
				}
				return b.Value, nil
			}))
			require.NoError(t, s.SetErrorHandler(func(err error) error {
				if err == assert.AnError {
					return errDatabase
				}
				return err
			}))
			req := httptest.NewRequest("POST", "/echo", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			res, err := s.Inject(req)
			require.NoError(t, err)
			assert.Equal(t, tt.status, res.StatusCode)
			entries := logs.FilterMessage(tt.message).All()
			require.Len(t, entries, 1, "%v", logs.All())
			assert.Equal(t, tt.level, entries[0].Level)
			assert.EqualValues(t, tt.status, entries[0].ContextMap()["statusCode"])
		})
	}
}

type databaseError struct{}

func (databaseError) Error() string { return "the database is down" }

var errDatabase = databaseError{}

// TestBoundingAnUnreadBodyCostsNoAllocation: the read net/http makes of a
// body no route asked for is bounded with a read deadline, which a writer
// without a connection (Inject's, a test's recorder) cannot set; asking
// costs nothing all the same, as for the reply's write deadline.
// Not parallel: testing.AllocsPerRun counts the whole process's
// allocations.
func TestBoundingAnUnreadBodyCostsNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	s := app.New()
	require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }))
	require.NoError(t, s.Ready())
	allocs := func(body io.Reader) float64 {
		r := httptest.NewRequest(http.MethodGet, "/", body)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r) // warm the pools
		require.Equal(t, "ok", w.Body.String())
		return testing.AllocsPerRun(200, func() {
			w.Body.Reset()
			s.ServeHTTP(w, r)
		})
	}
	assert.Equal(t, allocs(nil), allocs(strings.NewReader("left unread")))
}
