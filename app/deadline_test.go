package app_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
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

const timeoutBody = `{"statusCode":503,"code":"FST_ERR_REQUEST_TIMEOUT","error":"Service Unavailable","message":"Request timed out"}`

// TestDeadlineAnswers503WhileTheHandlerRuns: at the request time-out the
// client gets the documented 503 at once, although the handler ignores
// its context and answers later; that late answer is discarded.
func TestDeadlineAnswers503WhileTheHandlerRuns(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var late atomic.Value
	var seen atomic.Int32
	s := app.New(app.WithRequestTimeout(50 * time.Millisecond))
	s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen.Store(int32(rep.Status())) })
	s.Get("/stuck", func(rep *httpx.Reply) error {
		<-release // ignores its context
		err := rep.SetHeader("X-Late", "1").Send("late")
		late.Store(err == nil)
		return err
	})
	c := dial(t, serve(t, s))
	_, err := io.WriteString(c, "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil) // before the handler is released
	require.NoError(t, err, "the 503 comes at the deadline, not when the handler returns")
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	close(release)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.Equal(t, timeoutBody, string(b))
	assert.True(t, res.Close, "connection: close, since the handler still holds the connection")
	assert.Empty(t, res.Header.Get("X-Late"))

	// Nothing of the late answer reaches the client.
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Empty(t, string(rest))
	require.Eventually(t, func() bool { return seen.Load() != 0 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, int32(http.StatusServiceUnavailable), seen.Load(), "onResponse sees what the client got")
	assert.Equal(t, true, late.Load(), "the handler's Send does not fail: its reply is discarded")
}

// TestDeadlineDiscardsALateReplyInject is the same through Inject, which
// returns when the handler does.
func TestDeadlineDiscardsALateReplyInject(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestTimeout(20 * time.Millisecond))
	s.Get("/late", func(ctx context.Context, rep *httpx.Reply) error {
		<-ctx.Done()
		return rep.Send("late") // ignores why ctx ended
	})
	s.Get("/raw", func(ctx context.Context, rep *httpx.Reply) {
		<-ctx.Done()
		w := rep.Raw()
		w.WriteHeader(http.StatusAccepted)
		_, err := w.Write([]byte("raw"))
		assert.ErrorIs(t, err, http.ErrHandlerTimeout)
	})
	s.Get("/fast", func() (string, error) { return "fast", nil })
	for _, path := range []string{"/late", "/raw"} {
		status, body, h := do(t, s, "GET", path)
		assert.Equal(t, http.StatusServiceUnavailable, status, path)
		assert.Equal(t, timeoutBody, body, path)
		assert.Equal(t, "close", h.Get("Connection"), path)
	}
	status, body, _ := do(t, s, "GET", "/fast")
	assert.Equal(t, 200, status)
	assert.Equal(t, "fast", body)
}

// TestOnTimeoutRunsOnlyAtTheDeadline: a client that goes away runs
// onRequestAbort, never onTimeout, although both end the handler's
// context.
func TestOnTimeoutRunsOnlyAtTheDeadline(t *testing.T) {
	t.Parallel()
	var timeouts atomic.Int32
	aborted := make(chan struct{})
	finished := make(chan struct{})
	s := app.New(app.WithRequestTimeout(time.Minute))
	s.AddHook(app.OnTimeout, func() { timeouts.Add(1) })
	s.AddHook(app.OnRequestAbort, func() { close(aborted) })
	s.AddHook(app.OnResponse, func() { close(finished) })
	started := make(chan struct{})
	s.Get("/slow", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	addr := serve(t, s)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	<-started // the client leaves while the handler runs
	require.NoError(t, c.Close())
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("onRequestAbort did not run")
	}
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not finish")
	}
	assert.Zero(t, timeouts.Load(), "onTimeout ran for a client that went away")
}

// TestHooksBesideTheHandlerCannotSend: onTimeout and onRequestAbort hooks
// run on another goroutine while the handler runs; a reply or a request
// decorator (which the handler's hooks may be changing) is refused at
// Ready, so exactly one reply is ever written.
func TestHooksBesideTheHandlerCannotSend(t *testing.T) {
	t.Parallel()
	type deps struct {
		app.In
		User string `name:"user"`
	}
	type services struct {
		app.In
		Clock *time.Location
	}
	tests := []struct {
		name string
		fn   any
		want string // "" when Ready succeeds
	}{
		{"reply", func(rep *httpx.Reply) error { return rep.Code(504).Send("late") }, "*httpx.Reply cannot be taken in onTimeout and onRequestAbort hooks"},
		{"request and reply", func(*httpx.Request, *httpx.Reply) error { return nil }, "*httpx.Reply cannot be taken"},
		{"typed reply", app.Typed(func(*httpx.Reply, context.Context) error { return nil }), "*httpx.Reply cannot be taken"},
		{"decorator", func(d deps) {}, `request decorator "user" (field User) cannot be taken`},
		{"request, logger, context, services", func(*httpx.Request, *zap.Logger, context.Context, services) {}, ""},
	}
	for _, kind := range []app.Hook{app.OnTimeout, app.OnRequestAbort} {
		for _, tt := range tests {
			t.Run(kind.String()+"/"+tt.name, func(t *testing.T) {
				s := app.New(app.WithRequestTimeout(time.Second))
				s.DecorateRequest("user", "anonymous")
				s.Decorate(time.UTC)
				s.Get("/", func() {}, app.WithHook(kind, tt.fn))
				err := s.Ready()
				if tt.want == "" {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, app.ErrInvalidHandler)
				assert.Contains(t, err.Error(), tt.want)
			})
		}
	}
}

// TestHooksBesideTheHandlerDoNotRace: what onTimeout and onRequestAbort
// hooks read (the request's id, logger, query, params) is theirs, so they
// do not race the handler filling the same lazily (run it with -race).
func TestHooksBesideTheHandlerDoNotRace(t *testing.T) {
	t.Parallel()
	var seen atomic.Int32
	s := app.New(app.WithRequestTimeout(time.Millisecond))
	use := func(req *httpx.Request) bool {
		req.Log().Debug("used")
		return req.ID() != "" && req.Query("q") == "1" && req.Param("id") == "7"
	}
	s.AddHook(app.OnTimeout, func(req *httpx.Request) {
		if use(req) {
			seen.Add(1)
		}
	})
	s.Get("/r/:id", func(ctx context.Context, req *httpx.Request) error {
		<-ctx.Done()
		use(req) // at the same moment as the hook
		return ctx.Err()
	})
	for range 20 {
		status, _, _ := do(t, s, "GET", "/r/7?q=1")
		require.Equal(t, http.StatusServiceUnavailable, status)
	}
	assert.Equal(t, int32(20), seen.Load(), "the hook sees the request's own id, query and params")
}

// TestAbortHandlerPanicBesideTheHandlerIsRecovered: panic(http.ErrAbortHandler)
// in an onTimeout or onRequestAbort hook used to kill the process: nothing
// recovers on their goroutine. It is logged as the hook's failure.
func TestAbortHandlerPanicBesideTheHandlerIsRecovered(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.ErrorLevel)
	aborted := make(chan struct{})
	s := app.New(app.WithLogger(zap.New(core)), app.WithRequestTimeout(30*time.Millisecond))
	s.AddHook(app.OnTimeout, func() { panic(http.ErrAbortHandler) })
	s.AddHook(app.OnRequestAbort, func() {
		defer close(aborted)
		panic(http.ErrAbortHandler)
	})
	s.Get("/wait", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	s.Get("/ok", func() (string, error) { return "ok", nil })

	// onTimeout, in process.
	status, _, _ := do(t, s, "GET", "/wait")
	assert.Equal(t, http.StatusServiceUnavailable, status)

	// onRequestAbort, over a socket whose client leaves.
	addr := serve(t, s)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("onRequestAbort did not run")
	}

	res, err := s.Inject(httptest.NewRequest("GET", "/ok", nil))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode, "still serving")
	require.Eventually(t, func() bool {
		return logs.FilterMessage("onTimeout hook failed").Len() >= 1 &&
			logs.FilterMessage("onRequestAbort hook failed").Len() >= 1
	}, 5*time.Second, time.Millisecond)
}

// TestReplyBegunBeforeTheDeadlineIsLeftAlone: a handler that started
// streaming before the deadline keeps its reply; only onTimeout's 503 is
// for replies not yet begun.
func TestReplyBegunBeforeTheDeadlineIsLeftAlone(t *testing.T) {
	t.Parallel()
	var timeouts atomic.Int32
	s := app.New(app.WithRequestTimeout(30 * time.Millisecond))
	s.AddHook(app.OnTimeout, func() { timeouts.Add(1) })
	s.Get("/stream", func(ctx context.Context, rep *httpx.Reply) error {
		w := rep.Raw()
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("before "))
		f, ok := w.(http.Flusher)
		if !ok {
			return errors.New("not a flusher")
		}
		f.Flush()
		<-ctx.Done()
		_, err := w.Write([]byte("after"))
		return err
	})
	addr := serve(t, s)
	res, err := http.Get("http://" + addr + "/stream")
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "before after", string(b))
	assert.Zero(t, timeouts.Load())
}

// A client that asks for a large reply and never reads it holds the
// handler's goroutine, the reply and the connection until the reply's
// write deadline cuts it: the server then closes the connection.
func TestSlowReaderIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 32<<20) // far more than both sockets' buffers hold
	s := app.New(app.WithReplyTimeout(200 * time.Millisecond))
	s.Get("/big", func(rep *httpx.Reply) error { return rep.Send(big) })
	closedWhen(t, s, "", "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing")
}

// The request time-out's 503 is a reply like any other: a client that
// reads nothing of it loses its connection at the reply time-out, instead
// of holding for good the 503's write, and behind it the handler's
// goroutine and the onTimeout hooks, which wait for that write to end.
func TestTimeoutReplyIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestTimeout(50*time.Millisecond), app.WithReplyTimeout(200*time.Millisecond))
	timedOut := make(chan struct{})
	require.NoError(t, s.AddHook(app.OnTimeout, func() { close(timedOut) }))
	require.NoError(t, s.Get("/slow", func(ctx context.Context) error {
		<-ctx.Done()
		return nil
	}))
	closedWhen(t, s, "HTTP/1.1 503", "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing of the time-out's 503")
	select {
	case <-timedOut:
	default:
		assert.Fail(t, "the connection closed before the onTimeout hooks ran")
	}
}

// closedWhen serves s, sends request on one connection whose client reads
// nothing, and fails unless the server closes that connection within 5 s.
// With stall set, the server's write that begins with it blocks as it
// would for a client that had stopped reading before it came.
func closedWhen(t *testing.T, s *app.Server, stall, request, what string) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &closeWatcher{Listener: inner, closed: make(chan struct{}), stall: stall}
	c := dial(t, serveOn(t, s, ln))
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4<<10))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	select {
	case <-ln.closed:
	case <-time.After(5 * time.Second):
		t.Fatalf("the connection of %s was still open after 5 s", what)
	}
}

// closeWatcher is a listener whose first accepted connection closes
// closed when the server closes it. With stall set, its connections
// behave as if the client had stopped reading before the server wrote
// what begins with stall ("HTTP/1.1 100 Continue"): that write blocks
// until the connection's write deadline passes, or forever.
type closeWatcher struct {
	net.Listener
	closed chan struct{}
	once   sync.Once
	stall  string
}

func (l *closeWatcher) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c, l: l, gone: make(chan struct{})}, nil
}

type watchedConn struct {
	net.Conn
	l        *closeWatcher
	mu       sync.Mutex
	deadline time.Time
	gone     chan struct{}
	goneOnce sync.Once
}

func (c *watchedConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

func (c *watchedConn) Write(p []byte) (int, error) {
	if c.l.stall == "" || !bytes.HasPrefix(p, []byte(c.l.stall)) {
		return c.Conn.Write(p)
	}
	for {
		c.mu.Lock()
		d := c.deadline
		c.mu.Unlock()
		if !d.IsZero() && time.Now().After(d) {
			return 0, os.ErrDeadlineExceeded
		}
		select {
		case <-c.gone:
			return 0, net.ErrClosed
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (c *watchedConn) Close() error {
	c.goneOnce.Do(func() { close(c.gone) })
	c.l.once.Do(func() { close(c.l.closed) })
	return c.Conn.Close()
}

// The deadline a reply arms is disarmed once the reply has been written
// (net/http clears a connection's write deadline after each request):
// a kept-alive connection that idles longer than the reply time-out is
// served as usual afterwards, including a 100 Continue and a handler
// that writes to the ResponseWriter itself.
func TestReplyTimeoutDoesNotOutliveTheReply(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithReplyTimeout(100 * time.Millisecond))
	s.Get("/ok", func() (string, error) { return "ok", nil })
	s.Get("/raw", func(rep *httpx.Reply) {
		rep.Raw().WriteHeader(http.StatusOK)
		_, _ = io.WriteString(rep.Raw(), "raw")
	})
	s.Post("/echo", func(b app.Body[string]) (string, error) { return b.Value, nil })
	addr := serve(t, s)

	tests := []struct {
		name, request, body, want string
	}{
		{"a reply", "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", "", "ok"},
		{"a direct write", "GET /raw HTTP/1.1\r\nHost: x\r\n\r\n", "", "raw"},
		{"a 100 Continue", "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", "hi", "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, addr)
			br := bufio.NewReader(c)
			exchange := func(request, body, want string) {
				_, err := io.WriteString(c, request)
				require.NoError(t, err)
				if body != "" {
					line, err := br.ReadString('\n')
					require.NoError(t, err)
					require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
					_, err = br.ReadString('\n')
					require.NoError(t, err)
					_, err = io.WriteString(c, body)
					require.NoError(t, err)
				}
				_, b := readAnswer(t, br)
				assert.Equal(t, want, b)
			}
			exchange("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", "", "ok")
			time.Sleep(300 * time.Millisecond) // idle past the first reply's deadline
			exchange(tt.request, tt.body, tt.want)
		})
	}
}

// A stream has no end for its reply's deadline to bound, so each write of
// it is bounded instead: a client that stops reading an event stream or a
// streamed body loses its connection at the reply time-out, not never.
func TestSlowReaderOfAStreamIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/sse", "/stream"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			s := app.New(app.WithReplyTimeout(200 * time.Millisecond))
			endlessRoutes(s)
			closedWhen(t, s, "", "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing of "+path)
		})
	}
}

// endlessRoutes adds GET /sse and GET /stream to s, which stream 64 KiB
// parts until the connection is gone.
func endlessRoutes(s *app.Server) {
	chunk := strings.Repeat("x", 64<<10)
	s.Get("/sse", func(rep *httpx.Reply) error {
		es, err := rep.SSE()
		if err != nil {
			return err
		}
		for {
			if err := es.Send(httpx.Event{Data: chunk}); err != nil {
				return nil // the connection is gone: nothing left to answer
			}
		}
	})
	s.Get("/stream", func(rep *httpx.Reply) error {
		_ = rep.Stream(endless{})
		return nil
	})
}

// endless is a body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// The reply time-out reaches the connection through whatever wraps the
// reply's writer: the writer a middleware is handed (Burrow's, which
// records what left), a middleware's own writer that unwraps, and the
// guarded writer of a request time-out. A client that reads nothing of a
// large reply or of a stream behind any of them loses its connection at
// the reply time-out.
func TestSlowReaderBehindAWrappedWriterIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 64<<20) // far more than both sockets' buffers hold
	wrappers := []struct {
		name string
		opts []app.Option
		mw   app.Middleware
	}{
		{"a middleware", nil, func(h http.Handler) http.Handler { return h }},
		{"a middleware's writer", nil, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(unwrapping{w}, r)
			})
		}},
		{"a request time-out", []app.Option{app.WithRequestTimeout(time.Hour)}, nil},
	}
	for _, wr := range wrappers {
		for _, path := range []string{"/big", "/sse", "/stream"} {
			t.Run(wr.name+path, func(t *testing.T) {
				t.Parallel()
				s := app.New(append(wr.opts, app.WithReplyTimeout(200*time.Millisecond))...)
				if wr.mw != nil {
					require.NoError(t, s.Use(wr.mw))
				}
				s.Get("/big", func(rep *httpx.Reply) error { return rep.Send(big) })
				endlessRoutes(s)
				closedWhen(t, s, "", "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing of "+path+" behind "+wr.name)
			})
		}
	}
}

// unwrapping is a middleware's own writer, which gives
// http.ResponseController the one it wraps.
type unwrapping struct{ http.ResponseWriter }

func (u unwrapping) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// withFile calls serve with the file at name open.
func withFile(name string, serve func(*os.File) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return serve(f)
}

// fileRoutes serves the file at name three ways: ServeContent (a status
// first, then the copy), a mounted http.FileServer of its directory, and
// a copy into Raw() with no status written (the copy begins the reply).
func fileRoutes(t *testing.T, s *app.Server, name string) {
	t.Helper()
	require.NoError(t, s.Get("/content", func(rep *httpx.Reply) error {
		return withFile(name, func(f *os.File) error { return rep.ServeContent("f.bin", time.Time{}, f) })
	}))
	require.NoError(t, s.Mount("/files", http.FileServer(http.Dir(filepath.Dir(name)))))
	require.NoError(t, s.Get("/copy", func(rep *httpx.Reply) error {
		return withFile(name, func(f *os.File) error {
			st, err := f.Stat()
			if err != nil {
				return err
			}
			rep.Raw().Header().Set("Content-Length", strconv.FormatInt(st.Size(), 10)) // as a file server sets it
			_, err = io.Copy(rep.Raw(), f)
			return err
		})
	}))
}

// TestFilesReachTheConnectionsReadFromUnderARequestTimeout: the writer a
// request time-out puts in front of the handler passes a copy on to the
// connection's ReadFrom (sendfile), as the other writers do, and the
// access log still reports the exact size.
func TestFilesReachTheConnectionsReadFromUnderARequestTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB, past net/http's 512-byte sniff
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o600))
	for _, tt := range []struct{ path, rng string }{
		{"/content", ""},
		{"/content", "bytes=1000-"},
		{"/files/f.bin", ""},
		{"/copy", ""},
	} {
		t.Run(tt.path+"/"+tt.rng, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.InfoLevel)
			s := app.New(app.WithLogger(zap.New(core)), app.WithRequestTimeout(time.Minute))
			fileRoutes(t, s, filepath.Join(dir, "f.bin"))
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ln := &readFromListener{Listener: inner}
			req, err := http.NewRequest(http.MethodGet, "http://"+serveOn(t, s, ln)+tt.path, nil)
			require.NoError(t, err)
			want, status := data, http.StatusOK
			if tt.rng != "" {
				req.Header.Set("Range", tt.rng)
				want, status = data[1000:], http.StatusPartialContent
			}
			res, body := roundTrip(t, req)
			assert.Equal(t, status, res.StatusCode)
			assert.Equal(t, string(want), body)
			assert.Positive(t, ln.readFrom.Load(), "the connection's ReadFrom (sendfile) sent the file")
			require.Eventually(t, func() bool {
				return len(logs.FilterMessage("request completed").All()) == 1
			}, streamGuard, time.Millisecond)
			assert.EqualValues(t, len(want), accessLog(t, logs, http.MethodGet, tt.path)["responseSize"])
		})
	}
}

// TestCopyAfterTheDeadlineDoesNotReachTheClient: once the request
// time-out has answered 503, a copy into the reply is refused as a Write
// is (http.ErrHandlerTimeout) and nothing of it reaches the client — also
// a copy under way whose source yielded nothing before the deadline: the
// reply begins with the copy's first bytes, as with io.Copy through
// Write, so the 503 goes out at the deadline while the copy waits.
func TestCopyAfterTheDeadlineDoesNotReachTheClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "f.bin")
	secret := bytes.Repeat([]byte("late file "), 1<<10)
	require.NoError(t, os.WriteFile(name, secret, 0o600))
	for _, tt := range []struct {
		name string
		copy func(ctx context.Context, rep *httpx.Reply, src io.Reader) error
		pipe bool  // the source is a pipe the test fills once it has the 503
		err  error // what the handler's copy returns
	}{
		{"ServeContent after the deadline", func(ctx context.Context, rep *httpx.Reply, _ io.Reader) error {
			<-ctx.Done()
			return withFile(name, func(f *os.File) error { return rep.ServeContent("f.bin", time.Time{}, f) })
		}, false, nil}, // ServeContent reports no error, as http.ServeContent
		{"a copy into Raw after the deadline", func(ctx context.Context, rep *httpx.Reply, _ io.Reader) error {
			<-ctx.Done()
			return withFile(name, func(f *os.File) error { _, err := io.Copy(rep.Raw(), f); return err })
		}, false, http.ErrHandlerTimeout},
		{"a copy into Raw whose source yields after the deadline", func(_ context.Context, rep *httpx.Reply, src io.Reader) error {
			_, err := io.Copy(rep.Raw(), src)
			return err
		}, true, http.ErrHandlerTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pr, pw := io.Pipe()
			defer pw.Close()
			copied := make(chan error, 1)
			s := app.New(app.WithRequestTimeout(20 * time.Millisecond))
			require.NoError(t, s.Get("/late", func(ctx context.Context, rep *httpx.Reply) error {
				err := tt.copy(ctx, rep, pr)
				copied <- err
				return err
			}))
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ln := &readFromListener{Listener: inner}
			c := dial(t, serveOn(t, s, ln))
			_, err = io.WriteString(c, "GET /late HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			require.NoError(t, err, "the 503 comes at the deadline")
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
			assert.Equal(t, timeoutBody, string(b))
			if tt.pipe {
				// The copy reads what it needs and stops at the refused
				// write: the rest of the pipe is never read.
				go func() { _, _ = pw.Write(secret); pw.Close() }()
				defer pr.Close()
			}
			if err := waitFor(t, copied, "the handler's copy"); tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
			} else {
				assert.NoError(t, err)
			}
			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			assert.Empty(t, string(rest), "nothing after the 503")
			assert.Zero(t, ln.readFrom.Load(), "no copy reached the connection")
		})
	}
}

// TestCopyBegunBeforeTheDeadlineGoesOn: a reply whose status went before
// the deadline is the handler's, so a copy into it that outlasts the
// deadline still reaches the client, and no 503 is written.
func TestCopyBegunBeforeTheDeadlineGoesOn(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestTimeout(20 * time.Millisecond))
	require.NoError(t, s.Get("/slow", func(ctx context.Context, rep *httpx.Reply) error {
		pr, pw := io.Pipe()
		go func() {
			<-ctx.Done() // the source yields once the deadline has passed
			_, _ = pw.Write([]byte("after the deadline"))
			pw.Close()
		}()
		rep.Raw().WriteHeader(http.StatusOK)
		_, err := io.Copy(rep.Raw(), pr)
		return err
	}))
	req, err := http.NewRequest(http.MethodGet, "http://"+serve(t, s)+"/slow", nil)
	require.NoError(t, err)
	res, body := roundTrip(t, req)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "after the deadline", body)
}

// BenchmarkServeContentFile1MiBRequestTimeout is
// BenchmarkServeContentFile1MiB on a server with a request time-out: the
// guarded writer the time-out puts in front of the handler passes the
// copy on to the connection's ReadFrom too.
func BenchmarkServeContentFile1MiBRequestTimeout(b *testing.B) {
	benchServeContentFile(b, app.WithRequestTimeout(time.Minute))
}

// A middleware's headers, set before the route's lifecycle, are the
// handler's to read and add to under a request time-out too: a handler
// adding to Vary keeps the middleware's Origin (a CORS middleware's), and
// one deleting a header deletes it.
func TestMiddlewareHeadersReachTheHandlerUnderARequestTimeout(t *testing.T) {
	t.Parallel()
	for _, timeout := range []time.Duration{0, time.Hour} {
		s := app.New(app.WithRequestTimeout(timeout))
		require.NoError(t, s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Vary", "Origin")
				w.Header().Set("X-Mw", "set")
				w.Header().Set("X-Drop", "set")
				next.ServeHTTP(w, r)
			})
		}))
		require.NoError(t, s.Get("/", func(rep *httpx.Reply) error {
			rep.Header().Add("Vary", "Accept-Encoding")
			rep.Header().Del("X-Drop")
			return rep.Send(rep.Header().Get("X-Mw"))
		}))
		res := apptest.Get(t, s, "/")
		assert.Equal(t, "set", res.Body, "timeout %v", timeout)
		assert.Equal(t, []string{"Origin", "Accept-Encoding"}, res.Header.Values("Vary"), "timeout %v", timeout)
		assert.Empty(t, res.Header.Values("X-Drop"), "timeout %v", timeout)
	}
}
