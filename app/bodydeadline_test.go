package app_test

import (
	"context"
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
			w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
			r := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(`{"message":"hi"}`))
			r.Header.Set("Content-Type", "application/json")
			s.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			sets := 0
			for _, d := range w.reads {
				if !d.IsZero() {
					sets++
				}
			}
			assert.Equal(t, tt.sets, sets, tt.why)
		})
	}
}
