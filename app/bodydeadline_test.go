package app_test

import (
	"context"
	"errors"
	"io"
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
