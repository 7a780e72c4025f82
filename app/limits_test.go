package app_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func TestDefaultHeaderLimitAnswers431(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/", func() (string, error) { return "ok", nil })
	addr := serve(t, s)
	tests := []struct {
		name   string
		size   int
		status int
	}{
		{"well under the 16 KiB default", 8 << 10, http.StatusOK},
		{"over it (net/http allows 4 KiB of slack)", 24 << 10, http.StatusRequestHeaderFieldsTooLarge},
		{"net/http's own 1 MiB default", 1 << 20, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", "http://"+addr+"/", nil)
			require.NoError(t, err)
			req.Header.Set("X-Big", strings.Repeat("a", tt.size))
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, tt.status, res.StatusCode)
		})
	}
}

func TestReadHeaderTimeoutCutsSlowClients(t *testing.T) {
	s := app.New(app.WithTimeouts(150*time.Millisecond, 0, 0, time.Second))
	s.Get("/", func() (string, error) { return "ok", nil })
	addr := serve(t, s)

	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")) // never finishes the headers
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(3*time.Second)))
	start := time.Now()
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server closes the connection; the client's deadline is not what ends the read")
	assert.Less(t, time.Since(start), 2*time.Second)

	// A client that finishes in time is served.
	conn2, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn2.Close()
	_, err = conn2.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn2), nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func TestRouteParamAbuse(t *testing.T) {
	s := app.New()
	s.Get("/u/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	s.Get("/files/*", func(req *httpx.Request) (string, error) { return req.Param("*"), nil })
	addr := serve(t, s)
	tests := []struct {
		name, path string
		status     int
		body       string
	}{
		{"param at the limit", "/u/" + strings.Repeat("x", 100), 200, strings.Repeat("x", 100)},
		{"param over the limit", "/u/" + strings.Repeat("x", 101), 404, ""},
		{"escaped slash stays in the param", "/u/a%2Fb", 200, "a/b"},
		{"bad escape", "/u/%zz", 400, ""},
		{"10,000 segments", "/files" + strings.Repeat("/s", 10000), 200, strings.TrimPrefix(strings.Repeat("/s", 10000), "/")},
		{"10,000 segments on a fixed route", "/u" + strings.Repeat("/s", 10000), 404, ""},
		{"double slash", "/u//x", 404, ""},
		{"dot segment", "/u/./x", 404, ""},
		{"trailing slash", "/u/x/", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := rawGet(t, addr, tt.path)
			assert.Equal(t, tt.status, status.code)
			if tt.body != "" {
				assert.Equal(t, tt.body, status.body)
			}
		})
	}
	// A path over the header limit never reaches the router.
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, rawGet(t, addr, "/u/"+strings.Repeat("x", 2<<20)).code)
}

// rawGet sends path as is (no client-side cleaning) and reads the answer.
func rawGet(t *testing.T, addr, path string) answer {
	return rawExchange(t, addr, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
}

// The header and idle time-outs hold with and without whole-request read
// and write time-outs (net/http derives one from the other when unset).
func TestConnectionTimeouts(t *testing.T) {
	for _, mode := range []struct {
		name        string
		read, write time.Duration
	}{{"no whole-request time-outs", 0, 0}, {"with read and write time-outs", 5 * time.Second, 5 * time.Second}} {
		t.Run(mode.name, func(t *testing.T) {
			s := app.New(app.WithTimeouts(200*time.Millisecond, mode.read, mode.write, 300*time.Millisecond))
			s.Get("/", func() (string, error) { return "ok", nil })
			s.Get("/slow", func() (string, error) { time.Sleep(600 * time.Millisecond); return "slow", nil })
			addr := serve(t, s)

			t.Run("a silent new connection is cut after the header time-out", func(t *testing.T) {
				closedWithin(t, dial(t, addr), 150*time.Millisecond, 1500*time.Millisecond)
			})
			t.Run("an idle kept-alive connection is cut after the idle time-out", func(t *testing.T) {
				c := dial(t, addr)
				br := bufio.NewReader(c)
				for range 2 { // a second request keeps the connection in use
					_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
					require.NoError(t, err)
					res, err := http.ReadResponse(br, nil)
					require.NoError(t, err)
					res.Body.Close()
					require.Equal(t, 200, res.StatusCode)
				}
				closedWithin(t, br, 250*time.Millisecond, 1500*time.Millisecond)
			})
			t.Run("a request in progress is never cut", func(t *testing.T) {
				c := dial(t, addr)
				_, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
				require.NoError(t, err)
				_, b := readAnswer(t, bufio.NewReader(c))
				assert.Equal(t, "slow", b)
			})
		})
	}
}

// closedWithin reads r until the server closes the connection, and checks
// that it took between lo and hi: not before the time-out, not much after.
func closedWithin(t *testing.T, r io.Reader, lo, hi time.Duration) {
	t.Helper()
	start := time.Now()
	_, err := io.ReadAll(r)
	require.NoError(t, err, "the server closes; the client's own deadline is not what ends the read")
	assert.Less(t, time.Since(start), hi)
	assert.GreaterOrEqual(t, time.Since(start), lo)
}
