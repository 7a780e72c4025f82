package app_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

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
func BenchmarkServeContentFile1MiB(b *testing.B) {
	name := filepath.Join(b.TempDir(), "f.bin")
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), 1<<20), 0o600); err != nil {
		b.Fatal(err)
	}
	s := app.New()
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
