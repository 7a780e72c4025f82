package app_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

// serve starts s on a loopback port and returns its address; the server
// is closed when the test ends.
func serve(t *testing.T, s *app.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveOn(t, s, ln)
}

// serveInBackground starts s on a loopback port and returns its address
// and the channel Serve's result comes on, for a test that closes s
// itself and checks how Serve ends.
func serveInBackground(t *testing.T, s *app.Server) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	return ln.Addr().String(), served
}

// serveOn is serve on a listener the test made.
func serveOn(t *testing.T, s *app.Server, ln net.Listener) string {
	t.Helper()
	require.NoError(t, s.Ready())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		// A test that closed the server itself checks its own Close's
		// result (it may have cut the close short on purpose).
		if s.IsReady() {
			ctx, cancel := contextWithTimeout(2 * time.Second)
			defer cancel()
			assert.NoError(t, s.Close(ctx))
		}
		assert.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// dial opens a raw connection to addr, for requests no client would
// send; its deadline ends a read or write that only a broken server
// would leave hanging.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	return c
}

// readAnswer reads one response from a raw connection and returns it with
// its body read (and closed). A body cut short is not an error here: the
// caller's check of the body sees it.
func readAnswer(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// roundTrip sends req with the headers given as name, value pairs over a
// real socket, so that net/http's own client and server frame it, and
// returns the response with its body read (and closed).
func roundTrip(t *testing.T, req *http.Request, header ...string) (*http.Response, string) {
	t.Helper()
	require.Zero(t, len(header)%2, "headers come in name, value pairs")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}
