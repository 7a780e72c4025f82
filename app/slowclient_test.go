package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A client that asks for a large reply and never reads it holds the
// handler's goroutine, the reply and the connection until the reply's
// write deadline cuts it: the server then closes the connection.
func TestSlowReaderIsCutAtTheReplyTimeout(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 32<<20) // far more than both sockets' buffers hold
	s := app.New(app.WithReplyTimeout(200 * time.Millisecond))
	s.Get("/big", func(rep *httpx.Reply) error { return rep.Send(big) })
	closedWhen(t, s, false, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing")
}

// closedWhen serves s, sends request on one connection whose client reads
// nothing, and fails unless the server closes that connection within 5 s.
func closedWhen(t *testing.T, s *app.Server, stall bool, request, what string) {
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
// "100 Continue": that write blocks until the connection's write deadline
// passes, or forever.
type closeWatcher struct {
	net.Listener
	closed chan struct{}
	once   sync.Once
	stall  bool
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
	if !c.l.stall || !bytes.HasPrefix(p, []byte("HTTP/1.1 100 Continue")) {
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

// A "100 Continue" is a write too: for a client that reads nothing it
// would block forever, under no deadline, holding the request. The body
// time-out bounds it, as it bounds the body the client was asked for.
func TestContinueIsBoundedByTheBodyTimeout(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithBodyTimeout(200 * time.Millisecond))
	s.Post("/echo", func(b app.Body[string]) (string, error) { return b.Value, nil })
	closedWhen(t, s, true, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n",
		"a client that reads no 100 Continue")
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

// The default 404 and 405 messages repeat the request target, but no
// more than its first 1 KiB: a long target would otherwise double what a
// client that never reads its answers pins.
func TestNotFoundAndNotAllowedEchoAtMost1KiB(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithMaxHeaderBytes(1 << 20)) // let 100 KiB targets reach the router
	s.Get("/known", func() (string, error) { return "ok", nil })
	addr := serve(t, s)
	long := strings.Repeat("a", 100<<10)
	tests := []struct {
		name, method, target string
		status               int
		message              string
	}{
		{"short 404", "GET", "/four?x=1", 404, "Route GET:/four?x=1 not found"},
		{"long 404", "GET", "/" + long, 404, "Route GET:/" + long[:1023] + "… not found"},
		{"long 405", "POST", "/known?q=" + long, 405, "Route POST:/known?q=" + long[:1024-len("/known?q=")] + "… not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rawExchange(t, addr, tt.method+" "+tt.target+" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
			require.Equal(t, tt.status, got.code)
			var body struct{ Message string }
			require.NoError(t, json.Unmarshal([]byte(got.body), &body))
			assert.Equal(t, tt.message, body.Message)
			assert.Less(t, len(got.body), 1200)
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
			closedWhen(t, s, false, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing of "+path)
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
				closedWhen(t, s, false, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", "a client that reads nothing of "+path+" behind "+wr.name)
			})
		}
	}
}

// unwrapping is a middleware's own writer, which gives
// http.ResponseController the one it wraps.
type unwrapping struct{ http.ResponseWriter }

func (u unwrapping) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// TestStandardHandlersAreBoundedForSlowClients: a mounted handler and an
// http.Handler route read and write on the connection as any route does,
// under the body time-out and the reply time-out: a client that sends 2
// of the 10 bytes it announced, or that reads nothing of a large reply,
// makes the handler's read or write fail instead of holding it forever.
func TestStandardHandlersAreBoundedForSlowClients(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 64<<10)
	reader := func(errs chan<- error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			_, err := io.ReadAll(r.Body)
			errs <- err
		}
	}
	writer := func(errs chan<- error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var err error
			for i := 0; i < 1024 && err == nil; i++ { // 64 MiB: far more than both sockets' buffers hold
				_, err = w.Write(big)
			}
			errs <- err
		}
	}
	const slowBody = "POST /std/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"
	const slowReader = "GET /std/x HTTP/1.1\r\nHost: x\r\n\r\n"
	tests := []struct {
		name    string
		handler func(chan<- error) http.HandlerFunc
		mount   bool
		request string
	}{
		{"mount, slow body", reader, true, slowBody},
		{"http.Handler route, slow body", reader, false, slowBody},
		{"mount, slow reader", writer, true, slowReader},
		{"http.Handler route, slow reader", writer, false, slowReader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := make(chan error, 1)
			s := app.New(app.WithBodyTimeout(200*time.Millisecond), app.WithReplyTimeout(200*time.Millisecond))
			if tt.mount {
				require.NoError(t, s.Mount("/std", tt.handler(errs)))
			} else {
				require.NoError(t, s.Route(strings.Fields(tt.request)[0], "/std/x", tt.handler(errs)))
			}
			c := dial(t, serve(t, s))
			require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4<<10))
			_, err := io.WriteString(c, tt.request)
			require.NoError(t, err)
			select {
			case err := <-errs:
				var ne net.Error
				require.ErrorAs(t, err, &ne)
				assert.True(t, ne.Timeout(), "%v", err)
			case <-time.After(time.Minute): // a hang, not a measure
				t.Fatal("the handler was still reading or writing after a minute")
			}
		})
	}
}

// writeDeadlines is a ResponseRecorder that, like net/http's writer,
// sets write deadlines, and records them.
type writeDeadlines struct {
	*httptest.ResponseRecorder
	set []time.Time
}

func (d *writeDeadlines) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestStandardHandlerKeepsItsOwnWriteDeadline: the reply time-out is armed
// at a standard handler's first write, unless the handler set a write
// deadline of its own before (a long download): that one stays.
func TestStandardHandlerKeepsItsOwnWriteDeadline(t *testing.T) {
	t.Parallel()
	own := time.Now().Add(time.Hour)
	s := app.New(app.WithReplyTimeout(time.Minute))
	require.NoError(t, s.Get("/armed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "a")
		_, _ = io.WriteString(w, "b") // armed once, at the first write
	})))
	require.NoError(t, s.Get("/own", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetWriteDeadline(own); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "ab")
	})))
	require.NoError(t, s.Ready())
	for _, path := range []string{"/armed", "/own"} {
		w := &writeDeadlines{ResponseRecorder: httptest.NewRecorder()}
		before := time.Now()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, "ab", w.Body.String(), path)
		require.Len(t, w.set, 1, path)
		if path == "/own" {
			assert.Equal(t, own, w.set[0], "the handler's own deadline is not replaced")
		} else {
			assert.False(t, w.set[0].Before(before.Add(time.Minute)), "the reply time-out from the first write: %v", w.set[0])
		}
	}
}
