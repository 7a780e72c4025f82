package cors_test

import (
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
)

// client sends requests to one server over a real socket.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

// start serves s on a loopback port until the test ends.
func start(t *testing.T, s *app.Server) *client {
	t.Helper()
	require.NoError(t, s.Ready())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, s.Close(ctx))
		assert.NoError(t, <-done)
	})
	return &client{t: t, base: "http://" + ln.Addr().String(), http: &http.Client{Transport: tr}}
}

// answer is a response with its body read.
type answer struct {
	status int
	header http.Header
	body   string
}

// do sends one request with headers given as name, value pairs.
func (c *client) do(method, path string, header ...string) answer {
	c.t.Helper()
	return c.send(method, path, nil, header...)
}

// send is do with a body (nil for none).
func (c *client) send(method, path string, body *strings.Reader, header ...string) answer {
	c.t.Helper()
	var b io.Reader
	if body != nil {
		b = body
	}
	req, err := http.NewRequest(method, c.base+path, b)
	require.NoError(c.t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return answer{status: res.StatusCode, header: res.Header, body: string(got)}
}

// preflight sends a preflight from origin for method, asking for
// headers when given.
func (c *client) preflight(path, origin, method string, headers ...string) answer {
	c.t.Helper()
	h := []string{"Access-Control-Request-Method", method}
	if origin != "" {
		h = append(h, "Origin", origin)
	}
	if len(headers) > 0 {
		h = append(h, "Access-Control-Request-Headers", strings.Join(headers, ","))
	}
	return c.do(http.MethodOptions, path, h...)
}

// cors is the answer's Access-Control-* headers.
func (a answer) cors() map[string]string {
	m := map[string]string{}
	for k, v := range a.header {
		if strings.HasPrefix(k, "Access-Control-") {
			m[k] = strings.Join(v, ", ")
		}
	}
	return m
}

// vary is the answer's Vary header, its lines joined.
func (a answer) vary() string { return strings.Join(a.header.Values("Vary"), ", ") }

// ok is a handler answering "ok".
func ok() (string, error) { return "ok", nil }
