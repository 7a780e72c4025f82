package app_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// deadlineRecorder is a ResponseRecorder that, like net/http's writer,
// sets read deadlines, and records them.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	mu    sync.Mutex
	reads []time.Time
}

func (d *deadlineRecorder) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reads = append(d.reads, t)
	return nil
}

// postJSON serves a POST of a small JSON body to path on s, through a
// writer that records the read deadlines set.
func postJSON(s *app.Server, path string) *deadlineRecorder {
	w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"message":"hi"}`))
	r.Header.Set("Content-Type", "application/json")
	s.ServeHTTP(w, r)
	return w
}

// set is the number of non-zero read deadlines set so far.
func (d *deadlineRecorder) set() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, t := range d.reads {
		if !t.IsZero() {
			n++
		}
	}
	return n
}

// TestBodyDeadlineAfterTheHandler: net/http reads what is left of a body
// after the handler, so Burrow bounds that read — but a body the route's
// parser read to its end leaves nothing to read and costs no deadline.
func TestBodyDeadlineAfterTheHandler(t *testing.T) {
	t.Parallel()
	type msg struct {
		Message string `json:"message"`
	}
	s := apptest.New(t)
	require.NoError(t, s.Post("/parsed", func(b app.Body[msg]) (msg, error) { return b.Value, nil }))
	require.NoError(t, s.Post("/unread", func() (string, error) { return "ok", nil }))
	require.NoError(t, s.Post("/replaced", func(b app.Body[msg]) (msg, error) { return b.Value, nil },
		app.WithHook(app.PreParsing, func(req *httpx.Request) { req.SetBodyReader(io.MultiReader(req.BodyReader())) })))
	type echoIn struct {
		app.In
		Body msg `body:""`
	}
	require.NoError(t, app.Post(s, "/typed", func(_ context.Context, in echoIn) (msg, error) { return in.Body, nil }))
	require.NoError(t, s.Ready())
	tests := []struct {
		path string
		sets int // non-zero deadlines set
		why  string
	}{
		{"/parsed", 1, "the parser's own deadline only: the body is drained"},
		{"/typed", 1, "a typed route's body field is read as Body is"},
		{"/unread", 1, "the read net/http makes after the handler is bounded"},
		{"/replaced", 2, "a reader a hook set may not drain the raw body: bounded after the handler too"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			w := postJSON(s, tt.path)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, tt.sets, w.set(), tt.why)
		})
	}
}

// passThrough is a middleware that only calls next.
func passThrough(next http.Handler) http.Handler { return next }

// timeoutMiddleware is http.TimeoutHandler as a middleware: it answers
// 503 at once when its time is up, and returns while next still runs.
func timeoutMiddleware(next http.Handler) http.Handler {
	return http.TimeoutHandler(next, time.Millisecond, "busy")
}

// TestBodyDeadlineAfterTheHandlerBehindMiddleware: behind middleware, the
// lifecycle sees the copy of the request that carries the pattern; a
// body the route's parser read to its end is drained all the same, and
// costs no deadline after the handler. When the middleware returns while
// next still runs (http.TimeoutHandler), net/http reads the rest of the
// body as soon as the middleware returns: that read is bounded then.
func TestBodyDeadlineAfterTheHandlerBehindMiddleware(t *testing.T) {
	t.Parallel()
	type msg struct {
		Message string `json:"message"`
	}
	s := apptest.New(t)
	require.NoError(t, s.Use(passThrough))
	require.NoError(t, s.Post("/parsed", func(b app.Body[msg]) (msg, error) { return b.Value, nil }))
	require.NoError(t, s.Post("/unread", func() (string, error) { return "ok", nil }))
	release, ended := make(chan struct{}), make(chan struct{}, 1)
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(s.Use(timeoutMiddleware),
			s.AddHook(app.OnResponse, func() { ended <- struct{}{} }),
			s.Post("/late", func(ctx context.Context) (string, error) {
				<-ctx.Done() // http.TimeoutHandler's time is up
				<-release    // and ServeHTTP has returned
				return "late", nil
			}))
	}))
	require.NoError(t, s.Ready())
	tests := []struct {
		path   string
		status int
		sets   int // non-zero deadlines set by the time ServeHTTP returns
		why    string
	}{
		{"/parsed", http.StatusOK, 1, "the parser's own deadline only: the body is drained"},
		{"/unread", http.StatusOK, 1, "the read net/http makes after the handler is bounded"},
		{"/late", http.StatusServiceUnavailable, 1, "bounded before the middleware's answer is ended"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			w := postJSON(s, tt.path)
			sets := w.set()
			if tt.status == http.StatusServiceUnavailable {
				close(release)
				<-ended // the route's handler has returned
			}
			require.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Equal(t, tt.sets, sets, tt.why)
		})
	}
}

// A "100 Continue" is a write too: for a client that reads nothing it
// would block forever, under no deadline, holding the request. The body
// time-out bounds it, as it bounds the body the client was asked for.
func TestContinueIsBoundedByTheBodyTimeout(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithBodyTimeout(200 * time.Millisecond))
	s.Post("/echo", func(b app.Body[string]) (string, error) { return b.Value, nil })
	closedWhen(t, s, "HTTP/1.1 100 Continue", "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n",
		"a client that reads no 100 Continue")
}

func TestSlowBodyIsCutByTheBodyTimeout(t *testing.T) {
	s := app.New(app.WithBodyTimeout(200 * time.Millisecond))
	s.Post("/in", func(b app.Body[string]) (string, error) { return b.Value, nil })
	require.NoError(t, s.Ready())
	c := dial(t, serve(t, s))
	start := time.Now()
	_, err := io.WriteString(c, "POST /in HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten.")
	require.NoError(t, err)
	res, b := readAnswer(t, bufio.NewReader(c))
	assert.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	assert.Equal(t, `{"statusCode":408,"code":"ERR_BODY_TIMEOUT","error":"Request Timeout","message":"Request body was not received in time"}`, b)
	assert.True(t, res.Close, "connection: close")
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestConnectionCloseRepliesDoNotWaitForTheBody: after a reply that says
// connection: close (408 body time-out, 413), the server closes at once
// instead of reading what is left of the body. It used to read on for
// another body time-out, holding a 408's connection twice as long.
func TestConnectionCloseRepliesDoNotWaitForTheBody(t *testing.T) {
	const timeout = time.Second
	tests := []struct {
		name   string
		path   string
		status int
	}{
		{"408 body time-out", "/in", http.StatusRequestTimeout},
		{"413 declared length over the limit", "/small", http.StatusRequestEntityTooLarge},
	}
	s := app.New(app.WithBodyTimeout(timeout))
	s.Post("/in", func(b app.Body[string]) (string, error) { return b.Value, nil })
	s.Post("/small", func(b app.Body[string]) (string, error) { return b.Value, nil }, app.BodyLimit(10))
	addr := serve(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
			_, err = io.WriteString(c, "POST "+tt.path+" HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten.")
			require.NoError(t, err)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			_, err = io.Copy(io.Discard, res.Body)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, tt.status, res.StatusCode)
			require.True(t, res.Close)

			// The server closes now, not after a body time-out: give it
			// half of one (it takes a few milliseconds).
			require.NoError(t, c.SetReadDeadline(time.Now().Add(timeout/2)))
			n, err := br.Read(make([]byte, 1))
			assert.Equal(t, 0, n)
			assert.ErrorIs(t, err, io.EOF, "the server closed the connection instead of reading on")
		})
	}
}

// A body sent slowly to a route that never reads it: the answer comes at
// once, and the connection does not stay open while net/http drains the
// rest of the body afterwards.
func TestUnreadSlowBodyDoesNotHoldTheConnection(t *testing.T) {
	s := app.New(app.WithBodyTimeout(200 * time.Millisecond))
	s.Post("/ignore", func() (string, error) { return "done", nil })
	addr := serve(t, s)
	c := dial(t, addr)
	_, err := io.WriteString(c, "POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nslow")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	_, b := readAnswer(t, br)
	assert.Equal(t, "done", b)
	start := time.Now()
	_, err = io.ReadAll(br) // the server closes the connection
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
}
