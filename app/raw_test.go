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
	"sync/atomic"
	"testing"
	"testing/fstest"
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

// rawServer is a server whose routes write through rep.Raw(), with every
// log line (net/http's error log included) observed, and the status each
// request's onResponse hooks saw.
func rawServer(t *testing.T) (*app.Server, *observer.ObservedLogs, *atomic.Int32) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	s := app.New(app.WithLogger(zap.New(core)))
	var seen atomic.Int32
	require.NoError(t, s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen.Store(int32(rep.Status())) }))
	write := func(status int, body string, ret error) func(*httpx.Reply) error {
		return func(rep *httpx.Reply) error {
			w := rep.Raw()
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
			return ret
		}
	}
	require.NoError(t, s.Get("/created", write(http.StatusCreated, "made", nil)))
	require.NoError(t, s.Get("/partial", write(http.StatusPartialContent, "part", nil)))
	require.NoError(t, s.Get("/missing", write(http.StatusNotFound, "gone", nil)))
	require.NoError(t, s.Get("/failed", write(http.StatusOK, "half", errors.New("the database went away"))))
	require.NoError(t, s.Get("/then-send", func(rep *httpx.Reply) error {
		_, _ = io.WriteString(rep.Raw(), "raw")
		return rep.Send("again")
	}))
	// A mounted standard handler and a standard handler as a route write
	// through the same writer.
	require.NoError(t, s.Mount("/static", http.FileServerFS(staticFiles)))
	require.NoError(t, s.Get("/std", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "queued")
	})))
	return s, logs, &seen
}

// staticFiles is what rawServer mounts at /static.
var staticFiles = fstest.MapFS{
	"a.txt":     {Data: []byte("file a")},
	"dir/b.txt": {Data: []byte("file b")},
}

// fileServerAnswer is what http.FileServerFS answers for path on its own,
// to compare with the same handler mounted in Burrow.
func fileServerAnswer(path string) (int, string) {
	w := httptest.NewRecorder()
	http.FileServerFS(staticFiles).ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w.Code, w.Body.String()
}

func TestWritingThroughRawIsTheReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path   string
		status int
		body   string
		logged string // the error logged at error level, if any
	}{
		{"/created", http.StatusCreated, "made", ""},
		{"/partial", http.StatusPartialContent, "part", ""},
		{"/missing", http.StatusNotFound, "gone", ""},
		{"/failed", http.StatusOK, "half", "the database went away"},
		{"/then-send", http.StatusOK, "raw", httpx.ErrAlreadySent.Error()},
		{"/std", http.StatusAccepted, "queued", ""},
	}
	for _, path := range []string{"/a.txt", "/missing", "/dir"} { // 200, 404, 301
		status, body := fileServerAnswer(path)
		tests = append(tests, struct {
			path   string
			status int
			body   string
			logged string
		}{"/static" + path, status, body, ""})
	}
	for _, over := range []string{"socket", "inject"} {
		for _, tt := range tests {
			t.Run(over+tt.path, func(t *testing.T) {
				t.Parallel()
				s, logs, seen := rawServer(t)
				var status int
				var body string
				if over == "socket" {
					addr := serve(t, s)
					// Redirects are answers too: not followed.
					client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
					res, err := client.Get("http://" + addr + tt.path)
					require.NoError(t, err)
					b, err := io.ReadAll(res.Body)
					require.NoError(t, err)
					require.NoError(t, res.Body.Close())
					status, body = res.StatusCode, string(b)
				} else {
					res, err := s.Inject(httptest.NewRequest(http.MethodGet, tt.path, nil))
					require.NoError(t, err)
					b, err := io.ReadAll(res.Body)
					require.NoError(t, err)
					status, body = res.StatusCode, string(b)
				}
				assert.Equal(t, tt.status, status)
				assert.Equal(t, tt.body, body, "nothing is appended to what the handler wrote")
				assert.Equal(t, tt.status, int(seen.Load()), "onResponse sees the status written")

				assert.Empty(t, logs.FilterMessageSnippet("superfluous").All(), "net/http's error log")
				completed := logs.FilterMessage("request completed").All()
				require.Len(t, completed, 1)
				fields := completed[0].ContextMap()
				assert.EqualValues(t, tt.status, fields["statusCode"])
				assert.EqualValues(t, len(tt.body), fields["responseSize"])
				errs := logs.FilterLevelExact(zapcore.ErrorLevel).All()
				if tt.logged == "" {
					assert.Empty(t, errs)
					return
				}
				require.Len(t, errs, 1, "logged once, at error level")
				assert.Contains(t, errs[0].ContextMap()["error"], tt.logged)
			})
		}
	}
}

func TestFlushThroughRawReachesTheClientBeforeTheHandlerReturns(t *testing.T) {
	t.Parallel()
	flushers := []struct {
		name  string
		flush func(http.ResponseWriter) error
	}{
		{"ResponseController", func(w http.ResponseWriter) error { return http.NewResponseController(w).Flush() }},
		{"http.Flusher", func(w http.ResponseWriter) error {
			f, ok := w.(http.Flusher)
			if !ok {
				return errors.New("not an http.Flusher")
			}
			f.Flush()
			return nil
		}},
	}
	for _, fl := range flushers {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			s := apptest.New(t)
			require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
				w := rep.Raw()
				_, _ = io.WriteString(w, "first\n")
				if err := fl.flush(w); err != nil {
					return err
				}
				<-release
				_, _ = io.WriteString(w, "second\n")
				return nil
			}))
			addr := serve(t, s)
			res, err := http.Get("http://" + addr + "/stream")
			require.NoError(t, err)
			defer res.Body.Close()
			r := bufio.NewReader(res.Body)
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			assert.Equal(t, "first\n", line, "read while the handler waits")
			close(release)
			rest, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, "second\n", string(rest))
		})
	}
}

func TestRawKeepsTheConnectionsOptionalInterfaces(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	s := apptest.New(t, app.WithLogger(zap.New(core)))
	seen := make(chan int, 1)
	require.NoError(t, s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen <- rep.Status() }))
	require.NoError(t, s.Get("/upgrade", func(rep *httpx.Reply) error {
		rc := http.NewResponseController(rep.Raw())
		if err := rc.EnableFullDuplex(); err != nil {
			return err
		}
		conn, rw, err := rc.Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhello")
		return rw.Flush()
	}))
	addr := serve(t, s)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /upgrade HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	require.NoError(t, err)
	got, err := io.ReadAll(conn)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "HTTP/1.1 101 "), "%q", got)
	assert.True(t, strings.HasSuffix(string(got), "\r\n\r\nhello"), "nothing written after the hijack: %q", got)
	// The hook runs after the handler closed the connection.
	assert.Equal(t, http.StatusSwitchingProtocols, <-seen, "onResponse sees the upgrade")
	assert.Empty(t, logs.FilterMessageSnippet("hijacked").All(), "net/http's error log")
}

// TestRawWriterKeptPastTheHandlerPanics: like the Reply, the writer Raw
// returns belongs to its request; kept past it, it fails loudly instead
// of writing into the response of the next request its buffers serve.
func TestRawWriterKeptPastTheHandlerPanics(t *testing.T) {
	t.Parallel()
	var kept http.ResponseWriter
	s := apptest.New(t)
	require.NoError(t, s.Get("/keep", func(rep *httpx.Reply) error {
		kept = rep.Raw()
		return rep.Send("first")
	}))
	require.NoError(t, s.Get("/next", func() (string, error) { return "next", nil }))
	require.Equal(t, "first", apptest.Get(t, s, "/keep").Body)
	require.Equal(t, "next", apptest.Get(t, s, "/next").Body)

	const msg = "httpx.Reply used after its handler returned; a reply is sent before the handler (or the hook) returns"
	for name, use := range map[string]func(){
		"Write":       func() { _, _ = kept.Write([]byte("late")) },
		"WriteHeader": func() { kept.WriteHeader(http.StatusTeapot) },
		"Header":      func() { kept.Header() },
		"Flush":       func() { _ = http.NewResponseController(kept).Flush() },
	} {
		assert.PanicsWithError(t, msg, use, name)
	}
}

// TestInvalidStatusThroughRawIsAnError: net/http panics on a status
// outside 100 to 999, before writing anything; the reply has not begun,
// so the error path answers 500.
func TestInvalidStatusThroughRawIsAnError(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.ErrorLevel)
	s := apptest.New(t, app.WithLogger(zap.New(core)))
	require.NoError(t, s.Get("/bad", func(rep *httpx.Reply) error {
		rep.Raw().WriteHeader(1000)
		return nil
	}))
	res, err := http.Get("http://" + serve(t, s) + "/bad")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	// Inject answers as the socket does: its writer refuses the status too.
	assert.Equal(t, http.StatusInternalServerError, apptest.Get(t, s, "/bad").StatusCode, "through Inject")
	// And in the same words, net/http's, which carry no package prefix.
	var errs []string
	for _, e := range logs.All() {
		if err, ok := e.ContextMap()["error"].(string); ok {
			errs = append(errs, err)
		}
	}
	require.Len(t, errs, 2, "%v", logs.All())
	assert.Equal(t, "panic: invalid WriteHeader code 1000", errs[0], "over a socket")
	assert.Equal(t, errs[0], errs[1], "through Inject")
}

// TestInformationalStatusThroughRawIsNotTheReply: a 1xx written through
// Raw (103 Early Hints) goes ahead of the reply, which net/http still
// writes with its own status; Inject answers the same.
func TestInformationalStatusThroughRawIsNotTheReply(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New(app.WithLogger(zap.NewNop()))
		require.NoError(t, s.Get("/", func(rep *httpx.Reply) error {
			rep.Raw().Header().Set("Link", "</app.css>; rel=preload")
			rep.Raw().WriteHeader(http.StatusEarlyHints)
			return rep.Code(http.StatusCreated).Send("made")
		}))
		res := start(s)("GET", "/")
		assert.Equal(t, http.StatusCreated, res.StatusCode)
		assert.Equal(t, "made", res.Body)
	})
}

// A file served by ServeContent, by a mounted http.FileServer or copied
// into Raw() goes out through the connection's ReadFrom — net/http's
// sendfile path — with or without a middleware in between, and the
// access log reports its exact size and status.
func TestFilesReachTheConnectionsReadFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB, past net/http's 512-byte sniff
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o600))
	routes := func(s *app.Server) {
		require.NoError(t, s.Get("/content", func(rep *httpx.Reply) error {
			f, err := os.Open(filepath.Join(dir, "f.bin"))
			if err != nil {
				return err
			}
			defer f.Close()
			return rep.ServeContent("f.bin", time.Time{}, f)
		}))
		require.NoError(t, s.Mount("/files", http.FileServer(http.Dir(dir))))
		require.NoError(t, s.Get("/copy", func(rep *httpx.Reply) error {
			f, err := os.Open(filepath.Join(dir, "f.bin"))
			if err != nil {
				return err
			}
			defer f.Close()
			rep.Raw().Header().Set("Content-Length", strconv.Itoa(len(data))) // as a file server sets it
			_, err = io.Copy(rep.Raw(), f)
			return err
		}))
	}
	tests := []struct {
		path, rng string
		status    int
		size      int
	}{
		{"/content", "", http.StatusOK, len(data)},
		{"/content", "bytes=1000-", http.StatusPartialContent, len(data) - 1000},
		{"/files/f.bin", "", http.StatusOK, len(data)},
		{"/copy", "", http.StatusOK, len(data)},
	}
	for _, mw := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.path + "/" + tt.rng
			if mw {
				name = "middleware" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s, logs := loggedServer()
				if mw {
					require.NoError(t, s.Use(func(h http.Handler) http.Handler { return h }))
				}
				routes(s)
				inner, err := net.Listen("tcp", "127.0.0.1:0")
				require.NoError(t, err)
				ln := &readFromListener{Listener: inner}
				req, err := http.NewRequest(http.MethodGet, "http://"+serveOn(t, s, ln)+tt.path, nil)
				require.NoError(t, err)
				if tt.rng != "" {
					req.Header.Set("Range", tt.rng)
				}
				res, body := roundTrip(t, req)
				assert.Equal(t, tt.status, res.StatusCode)
				assert.Len(t, body, tt.size)
				assert.Equal(t, string(data[len(data)-tt.size:]), body)
				assert.Positive(t, ln.readFrom.Load(), "the connection's ReadFrom (sendfile) sent the file")
				require.Eventually(t, func() bool { // the log's last line follows the reply's last byte
					return len(logs.FilterMessage("request completed").All()) == 1
				}, streamGuard, time.Millisecond)
				fields := accessLog(t, logs, http.MethodGet, tt.path)
				assert.EqualValues(t, tt.status, fields["statusCode"])
				assert.EqualValues(t, tt.size, fields["responseSize"])
			})
		}
	}
}

// Raw() is an io.ReaderFrom, so io.Copy into it keeps the connection's
// ReadFrom; a copy that comes first begins the reply with 200, and the
// size counts — in process too, where the writer underneath has none.
func TestCopyIntoRawBeginsTheReplyWith200(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer()
	seen := make(chan int, 1)
	require.NoError(t, s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen <- rep.Status() }))
	require.NoError(t, s.Get("/copy", func(rep *httpx.Reply) error {
		rf, ok := rep.Raw().(io.ReaderFrom)
		require.True(t, ok, "Raw() is an io.ReaderFrom")
		n, err := rf.ReadFrom(bytes.NewReader([]byte("copied")))
		assert.EqualValues(t, 6, n)
		assert.Equal(t, http.StatusOK, rep.Status(), "the reply began with 200")
		assert.True(t, rep.Sent())
		return err
	}))
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/copy", nil))
	require.NoError(t, err)
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "copied", string(b))
	assert.Equal(t, http.StatusOK, waitFor(t, seen, "OnResponse"))
	require.Eventually(t, func() bool { return len(logs.FilterMessage("request completed").All()) == 1 }, streamGuard, time.Millisecond)
	assert.EqualValues(t, 6, accessLog(t, logs, http.MethodGet, "/copy")["responseSize"])
}

// readFromListener's connections count the calls of their ReadFrom,
// which net/http uses to send a file (sendfile) when the writer it is
// given a copy through passes the copy down.
type readFromListener struct {
	net.Listener
	readFrom atomic.Int32
}

func (l *readFromListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &readFromConn{Conn: c, l: l}, nil
}

type readFromConn struct {
	net.Conn
	l *readFromListener
}

func (c *readFromConn) ReadFrom(src io.Reader) (int64, error) {
	c.l.readFrom.Add(1)
	return c.Conn.(io.ReaderFrom).ReadFrom(src)
}

// BenchmarkServeContentFile1MiB serves a 1 MiB file with ServeContent
// over a loopback socket: the copy goes to the connection's ReadFrom
// (sendfile) through the reply's writer.
func BenchmarkServeContentFile1MiB(b *testing.B) { benchServeContentFile(b) }

// benchServeContentFile is BenchmarkServeContentFile1MiB on a server made
// with opts.
func benchServeContentFile(b *testing.B, opts ...app.Option) {
	name := filepath.Join(b.TempDir(), "f.bin")
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), 1<<20), 0o600); err != nil {
		b.Fatal(err)
	}
	s := app.New(opts...)
	if err := s.Get("/file", func(rep *httpx.Reply) error {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		return rep.ServeContent("f.bin", time.Time{}, f)
	}); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Ready(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		_ = s.Close(context.Background())
		<-done
	}()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/file"
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
}
