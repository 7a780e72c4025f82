package app_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// waitingMessage is what Close logs when it begins to wait for the
// handlers of hijacked connections.
const waitingMessage = "waiting for the handlers of hijacked connections"

// hijackTest is a server whose /ws route hands its connection to a
// handler that takes it over, with what the close does recorded in
// order: the lifecycle's hooks, the handler's return, the access log.
type hijackTest struct {
	s    *app.Server
	logs *observer.ObservedLogs

	stop    chan struct{} // closed by the PreClose hook: the server is closing
	waiting chan struct{} // closed when Close logs waitingMessage
	abort   bool          // serveHijacked aborts once it has answered 101

	mu    sync.Mutex
	trace []string
}

func (h *hijackTest) note(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trace = append(h.trace, what)
}

func (h *hijackTest) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.trace...)
}

// newHijackTest makes the server with opts; the PreClose hook is how the
// hijacked handler learns that the server is closing.
func newHijackTest(t *testing.T, opts ...app.Option) *hijackTest {
	t.Helper()
	h := &hijackTest{stop: make(chan struct{}), waiting: make(chan struct{})}
	core, logs := observer.New(zapcore.InfoLevel)
	h.logs = logs
	var once sync.Once
	log := zap.New(core, zap.Hooks(func(e zapcore.Entry) error {
		switch e.Message {
		case "request completed":
			h.note("access log")
		case waitingMessage:
			h.note("waiting")
			once.Do(func() { close(h.waiting) })
		}
		return nil
	}))
	h.s = app.New(append([]app.Option{app.WithLogger(log)}, opts...)...)
	require.NoError(t, h.s.PreClose(func(context.Context) error {
		h.note("preClose")
		close(h.stop)
		return nil
	}))
	require.NoError(t, h.s.OnClose(func(context.Context) error { h.note("onClose"); return nil }))
	require.NoError(t, h.s.AddHook(app.OnResponse, func(rep *httpx.Reply) { h.note(fmt.Sprintf("onResponse %d", rep.Status())) }))
	return h
}

// serveHijacked takes the connection over from w and answers 101; once
// the server is closing it says "bye", then waits for the client to
// close the connection, as a WebSocket handler sends a close frame and
// waits for the client's. With h.abort, it closes the connection after
// the 101 and aborts (panic(http.ErrAbortHandler)), as a handler does
// that gives up on a broken connection.
func (h *hijackTest) serveHijacked(w http.ResponseWriter) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		h.note("hijack failed: " + err.Error())
		return
	}
	defer conn.Close()
	defer h.note("handler returned")
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n")
	if rw.Flush() != nil {
		return
	}
	if h.abort {
		conn.Close()
		panic(http.ErrAbortHandler)
	}
	<-h.stop
	_, _ = rw.WriteString("bye\n")
	if rw.Flush() != nil {
		return
	}
	_, _ = io.Copy(io.Discard, rw)
}

// start serves h's server, with its routes added by route.
func (h *hijackTest) start(t *testing.T, route func(*hijackTest) error) (addr string, served <-chan error) {
	t.Helper()
	require.NoError(t, route(h))
	require.NoError(t, h.s.Ready())
	return serveInBackground(t, h.s)
}

// closeWhileHijacked closes h's server, with a context that leaves it all
// the time it needs, while the handler of conn runs: the handler hears of
// the close (its "bye" on br) and Close must wait for it. The client then
// closes conn, the handler returns, and Close's result is returned.
func (h *hijackTest) closeWhileHijacked(t *testing.T, conn net.Conn, br *bufio.Reader) error {
	t.Helper()
	defer conn.Close()
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := contextWithTimeout(10 * time.Second)
		defer cancel()
		closed <- h.s.Close(ctx)
	}()
	bye, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "bye\n", bye, "the PreClose hook told the handler")
	select {
	case <-h.waiting:
	case err := <-closed:
		require.Failf(t, "Close did not wait", "Close returned (%v) while the hijacked handler was still running: %q", err, h.events())
	}
	conn.Close() // the client answers the "bye": the handler returns
	return <-closed
}

// upgrade opens a connection to addr and has it taken over at path.
func upgrade(t *testing.T, addr, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn := dial(t, addr)
	_, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
	return conn, br
}

// hijackCases are the ways a connection of a route is taken over: each
// registers /ws on h's server.
var hijackCases = []struct {
	name  string
	opts  []app.Option
	route func(h *hijackTest) error
}{
	{"through Raw", nil, func(h *hijackTest) error {
		return h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil })
	}},
	{"through Raw with a request time-out", []app.Option{app.WithRequestTimeout(time.Hour)}, func(h *hijackTest) error {
		return h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil })
	}},
	{"by a mounted handler", nil, func(h *hijackTest) error {
		return h.s.Mount("/ws", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { h.serveHijacked(w) }))
	}},
	{"by a handler behind a middleware", nil, func(h *hijackTest) error {
		return errors.Join(
			h.s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					next.ServeHTTP(unwrapping{w}, r)
				})
			}),
			h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil }),
		)
	}},
	{"by a middleware", nil, func(h *hijackTest) error {
		return errors.Join(
			h.s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("Upgrade") != "" {
						h.serveHijacked(w)
						return
					}
					next.ServeHTTP(w, r)
				})
			}),
			h.s.Get("/ws", func() (string, error) { return "not upgraded", nil }),
		)
	}},
	{"by a handler whose middleware returned before it", nil, func(h *hijackTest) error {
		return errors.Join(
			h.s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hw := &hijackSignal{ResponseWriter: w, hijacked: make(chan struct{})}
					go func() {
						defer func() { _ = recover() }() // nothing above this goroutine would (an abort)
						next.ServeHTTP(hw, r)
					}()
					<-hw.hijacked // return while next serves the connection
				})
			}),
			h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil }),
		)
	}},
}

// eachHijack runs test, in parallel, on a started server for each way a
// connection can be hijacked; with abort, the handler aborts once it has
// answered 101.
func eachHijack(t *testing.T, abort bool, test func(t *testing.T, h *hijackTest, addr string, served <-chan error)) {
	for _, tc := range hijackCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHijackTest(t, tc.opts...)
			h.abort = abort
			addr, served := h.start(t, tc.route)
			test(t, h, addr, served)
		})
	}
}

// hijackSignal is a middleware's writer that tells when its connection
// has been taken over.
type hijackSignal struct {
	http.ResponseWriter
	hijacked chan struct{}
}

func (w *hijackSignal) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	close(w.hijacked)
	return c, rw, err
}

// TestCloseWaitsForHijackedHandlers: net/http's Shutdown neither closes
// nor waits for a hijacked connection, so Close waits for its handler
// itself, after the drain and before the OnClose hooks; the handler learns
// of the close through a PreClose hook, and its onResponse hooks and
// access log are done when Close returns.
func TestCloseWaitsForHijackedHandlers(t *testing.T) {
	t.Parallel()
	eachHijack(t, false, func(t *testing.T, h *hijackTest, addr string, served <-chan error) {
		conn, br := upgrade(t, addr, "/ws")
		require.NoError(t, h.closeWhileHijacked(t, conn, br))
		require.NoError(t, <-served)
		assert.Equal(t, []string{"preClose", "waiting", "handler returned", "onResponse 101", "access log", "onClose"}, h.events())
		completed := h.logs.FilterMessage("request completed").All()
		require.Len(t, completed, 1)
		assert.EqualValues(t, http.StatusSwitchingProtocols, completed[0].ContextMap()["statusCode"])
	})
}

// TestCloseReportsHijackedHandlersStillRunning: when Close's context ends
// while handlers of hijacked connections still run, Close says how many,
// with the context's error, and runs the OnClose hooks all the same, as it
// does when the drain runs out of time.
func TestCloseReportsHijackedHandlersStillRunning(t *testing.T) {
	t.Parallel()
	eachHijack(t, false, func(t *testing.T, h *hijackTest, addr string, served <-chan error) {
		conns := []net.Conn{}
		for range 2 {
			conn, _ := upgrade(t, addr, "/ws")
			conns = append(conns, conn)
		}

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		closed := make(chan error, 1)
		go func() { closed <- h.s.Close(ctx) }()
		var err error
		select {
		case <-h.waiting:
			cancel() // the context ends while both handlers wait for their clients
			err = <-closed
		case err = <-closed:
		}
		assert.NotContains(t, h.events(), "handler returned", "Close returned while the handlers run")
		for _, c := range conns {
			c.Close()
		}
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "2 handlers of hijacked connections still running")
		require.NoError(t, <-served)
		events := h.events()
		require.GreaterOrEqual(t, len(events), 3)
		assert.Equal(t, []string{"preClose", "waiting", "onClose"}, events[:3])
		// Released, the handlers end their requests as usual.
		require.Eventually(t, func() bool { return len(h.logs.FilterMessage("request completed").All()) == 2 },
			5*time.Second, time.Millisecond)
	})
}

// TestCloseDoesNotWaitForAHijackedHandlerThatAborted: a handler that
// closes the connection it took over and aborts (panic(http.ErrAbortHandler),
// which net/http's own code and WebSocket libraries use) has ended its
// request: Close returns nil at once, instead of waiting until its context
// ends and reporting the handler still running.
func TestCloseDoesNotWaitForAHijackedHandlerThatAborted(t *testing.T) {
	t.Parallel()
	eachHijack(t, true, func(t *testing.T, h *hijackTest, addr string, served <-chan error) {
		conn, br := upgrade(t, addr, "/ws")
		defer conn.Close()
		_, err := br.ReadByte()
		require.ErrorIs(t, err, io.EOF, "the handler closed the connection")
		ctx, cancel := contextWithTimeout(time.Second)
		defer cancel()
		assert.NoError(t, h.s.Close(ctx), "Close waited for a handler that had aborted")
		require.NoError(t, <-served)
		assert.Contains(t, h.events(), "handler returned")
	})
}

// TestCloseWaitsForANextBesideItsAbortingMiddleware: a middleware that
// aborts while its next, on a goroutine of the middleware's, serves the
// hijacked connection leaves the request to that goroutine: Close waits
// for it, and its hooks and log line are done when Close returns.
//
// The handler waits for the abort to reach net/http (which ends the
// request's context) before it goes on: without that, nothing orders the
// middleware's panic before the handler's return, and a middleware
// scheduled late aborts a request its next has already finished, which
// is an aborted request (no hooks, no log line), not this test's case.
func TestCloseWaitsForANextBesideItsAbortingMiddleware(t *testing.T) {
	t.Parallel()
	h := newHijackTest(t)
	aborted := make(chan struct{})
	addr, served := h.start(t, func(h *hijackTest) error {
		return errors.Join(
			h.s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hw := &hijackSignal{ResponseWriter: w, hijacked: make(chan struct{})}
					go next.ServeHTTP(hw, r)
					<-hw.hijacked
					panic(http.ErrAbortHandler)
				})
			}),
			h.s.Get("/ws", func(req *httpx.Request, rep *httpx.Reply) error {
				context.AfterFunc(req.Context(), func() { close(aborted) })
				h.serveHijacked(rep.Raw())
				return nil
			}),
		)
	})
	conn, br := upgrade(t, addr, "/ws")
	<-aborted // the middleware has left the request to its next
	require.NoError(t, h.closeWhileHijacked(t, conn, br))
	require.NoError(t, <-served)
	assert.Equal(t, []string{"preClose", "waiting", "handler returned", "onResponse 101", "access log", "onClose"}, h.events())
}

// TestCloseWaitsOnlyForItsOwnServersHijacks: a hijacked request served
// through another http.Server (the server used as an http.Handler) is not
// one Close can wait for, and its end does not count against those of
// the servers Burrow runs.
func TestCloseWaitsOnlyForItsOwnServersHijacks(t *testing.T) {
	t.Parallel()
	h := newHijackTest(t)
	other := make(chan struct{})
	addr, served := h.start(t, func(h *hijackTest) error {
		return h.s.Get("/ws", func(req *httpx.Request, rep *httpx.Reply) error {
			if req.Query("other") != "" {
				conn, _, err := http.NewResponseController(rep.Raw()).Hijack()
				if err == nil {
					conn.Close()
				}
				close(other)
				return err
			}
			h.serveHijacked(rep.Raw())
			return nil
		})
	})
	conn, br := upgrade(t, addr, "/ws")

	// The same server as the handler of an http.Server of the test's.
	ts := httptest.NewServer(h.s)
	defer ts.Close()
	oc := dial(t, strings.TrimPrefix(ts.URL, "http://"))
	_, err := io.WriteString(oc, "GET /ws?other=1 HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	_, err = io.ReadAll(oc)
	require.NoError(t, err)
	<-other
	require.Eventually(t, func() bool { return len(h.logs.FilterMessage("request completed").All()) == 1 },
		5*time.Second, time.Millisecond, "the other server's request has ended")

	require.NoError(t, h.closeWhileHijacked(t, conn, br))
	require.NoError(t, <-served)
	events := h.events()
	require.NotEmpty(t, events)
	assert.Equal(t, "onClose", events[len(events)-1])
	assert.Less(t, indexOf(events, "handler returned"), indexOf(events, "onClose"))
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// unwrapped is the writer underneath w, which a handler reaches with
// Unwrap to get past Burrow's.
func unwrapped(w http.ResponseWriter) http.ResponseWriter {
	return w.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
}

// TestCloseWaitsForHijacksBeneathBurrowsWriter: a connection taken over
// through the writer underneath Burrow's (reached with Unwrap) is waited
// for as any hijacked connection, and its handler's return ends the
// wait: Close returns nil once the handler has returned, instead of
// waiting until its context ends and reporting the handler as still
// running.
func TestCloseWaitsForHijacksBeneathBurrowsWriter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []app.Option
		route func(h *hijackTest) error
	}{
		{"Raw unwrapped", nil, func(h *hijackTest) error {
			return h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(unwrapped(rep.Raw())); return nil })
		}},
		{"Raw unwrapped with a request time-out", []app.Option{app.WithRequestTimeout(time.Hour)}, func(h *hijackTest) error {
			return h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(unwrapped(rep.Raw())); return nil })
		}},
		{"a mounted handler's writer unwrapped", nil, func(h *hijackTest) error {
			return h.s.Mount("/ws", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { h.serveHijacked(unwrapped(w)) }))
		}},
		{"a middleware's writer unwrapped", nil, func(h *hijackTest) error {
			return errors.Join(
				h.s.Use(func(http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { h.serveHijacked(unwrapped(w)) })
				}),
				h.s.Get("/ws", func() (string, error) { return "not upgraded", nil }),
			)
		}},
		{"a handler behind a middleware that unwraps", nil, func(h *hijackTest) error {
			return errors.Join(
				h.s.Use(func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(unwrapped(w), r) })
				}),
				h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil }),
			)
		}},
		{"a handler whose middleware unwrapped and returned before it", nil, func(h *hijackTest) error {
			return errors.Join(
				h.s.Use(func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						hw := &hijackSignal{ResponseWriter: unwrapped(w), hijacked: make(chan struct{})}
						go next.ServeHTTP(hw, r)
						<-hw.hijacked
					})
				}),
				h.s.Get("/ws", func(rep *httpx.Reply) error { h.serveHijacked(rep.Raw()); return nil }),
			)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHijackTest(t, tc.opts...)
			addr, served := h.start(t, tc.route)
			conn, br := upgrade(t, addr, "/ws")
			require.NoError(t, h.closeWhileHijacked(t, conn, br), "Close waited for a handler that had returned")
			require.NoError(t, <-served)
			events := h.events()
			require.NotEmpty(t, events)
			assert.Equal(t, []string{"preClose", "waiting", "handler returned"}, events[:min(3, len(events))])
			assert.Equal(t, "onClose", events[len(events)-1])
			assert.Len(t, h.logs.FilterMessage("request completed").All(), 1)
		})
	}
}

// TestAKeptRequestContextDoesNotKeepItsConnection: the context of a
// request (through which Burrow finds its connection when it ends) may be
// kept by a background job long after the connection closed; it keeps
// the request's values, not the closed connection.
func TestAKeptRequestContextDoesNotKeepItsConnection(t *testing.T) {
	t.Parallel()
	s := app.New()
	kept := make(chan context.Context, 1)
	require.NoError(t, s.Get("/", func(ctx context.Context) (string, error) {
		kept <- ctx
		return "ok", nil
	}))
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &weakListener{Listener: inner, accepted: make(chan weak.Pointer[net.TCPConn], 1)}
	c := dial(t, serveOn(t, s, ln))
	_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	_, err = io.ReadAll(c) // to the end: the server closed the connection
	require.NoError(t, err)
	ctx := <-kept
	conn := <-ln.accepted
	require.Eventually(t, func() bool {
		runtime.GC()
		return conn.Value() == nil
	}, 5*time.Second, 10*time.Millisecond, "the closed connection is reachable from the kept context")
	assert.NotNil(t, ctx.Value(http.ServerContextKey), "the context is still the request's")
}

// weakListener hands on the connections it accepts, weakly.
type weakListener struct {
	net.Listener
	accepted chan weak.Pointer[net.TCPConn]
}

func (l *weakListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		select {
		case l.accepted <- weak.Make(tc):
		default:
		}
	}
	return c, err
}
