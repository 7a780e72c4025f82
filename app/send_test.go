package app_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// TestInjectReturnsAbortAsAnError: a handler that aborts its response
// (panic(http.ErrAbortHandler)) drops a real connection; Inject, which
// has none, reports it as an error instead of panicking into its caller.
func TestInjectReturnsAbortAsAnError(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/", func() { panic(http.ErrAbortHandler) })
	s.Get("/ok", func() (string, error) { return "ok", nil })
	var err error
	require.NotPanics(t, func() { _, err = s.Inject(httptest.NewRequest("GET", "/", nil)) })
	assert.ErrorIs(t, err, http.ErrAbortHandler)
	status, body, _ := do(t, s, "GET", "/ok")
	assert.Equal(t, 200, status)
	assert.Equal(t, "ok", body)
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
