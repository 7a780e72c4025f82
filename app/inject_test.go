package app_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// readN reads exactly n bytes of body.
func readN(t *testing.T, body io.Reader, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := io.ReadFull(body, b)
	require.NoError(t, err)
	return string(b)
}

func TestInjectStreamsAFlushedReply(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	release := make(chan struct{})
	require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
		w := rep.Raw()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "a")
		if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
		<-release
		_, _ = io.WriteString(w, "b")
		return nil
	}))
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/stream", nil))
	require.NoError(t, err, "Inject returns at the flush, while the handler waits")
	defer res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	assert.Empty(t, res.Header.Get("Content-Length"), "a streamed reply has no length")
	assert.EqualValues(t, -1, res.ContentLength)
	assert.Equal(t, "a", readN(t, res.Body, 1))
	close(release)
	rest, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, "b", string(rest), "the body ends when the handler returns")
}

func TestClosingAStreamedInjectBodyEndsTheRequest(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	writeErr := make(chan error, 1)
	require.NoError(t, s.Get("/stream", func(req *httpx.Request, rep *httpx.Reply) error {
		w := rep.Raw()
		_, _ = io.WriteString(w, "a")
		_ = http.NewResponseController(w).Flush()
		<-req.Context().Done() // the client went away
		_, err := io.WriteString(w, "b")
		writeErr <- err
		return nil
	}))
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/stream", nil))
	require.NoError(t, err)
	assert.Equal(t, "a", readN(t, res.Body, 1))
	require.NoError(t, res.Body.Close())
	assert.Error(t, <-writeErr, "writing to a client that left fails")
	_, err = res.Body.Read(make([]byte, 1))
	assert.Error(t, err, "a closed body reads nothing")
	assert.EqualError(t, err, "read on a closed Inject response body", "no package prefix")
}

func TestInjectReportsAnAbortAfterTheFlushOnTheBody(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	release := make(chan struct{})
	require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
		w := rep.Raw()
		_, _ = io.WriteString(w, "a")
		_ = http.NewResponseController(w).Flush()
		<-release
		panic(http.ErrAbortHandler)
	}))
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/stream", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	close(release)
	b, err := io.ReadAll(res.Body)
	assert.Equal(t, "a", string(b))
	assert.ErrorIs(t, err, http.ErrAbortHandler, "the stream is cut, as a connection would be")
}

func TestInjectReturnsWhenTheHandlerExitsItsGoroutine(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Get("/exit", func() error { runtime.Goexit(); return nil }))
	_, err := s.Inject(httptest.NewRequest(http.MethodGet, "/exit", nil))
	assert.Error(t, err, "an error, not a hang")
	assert.EqualError(t, err, "the handler's goroutine exited without returning (runtime.Goexit; t.FailNow in a handler?)",
		"one sentence, no package prefix")
}

// TestInjectReturnsAbortAsAnError: a handler that aborts its response
// (panic(http.ErrAbortHandler)) drops a real connection; Inject, which
// has none, reports it as an error instead of panicking into its caller.
func TestInjectReturnsAbortAsAnError(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/", func() { panic(http.ErrAbortHandler) })
	s.Get("/ok", func() (string, error) { return "ok", nil })
	var err error
	require.NotPanics(t, func() { _, err = s.Inject(httptest.NewRequest("GET", "/", nil)) })
	assert.ErrorIs(t, err, http.ErrAbortHandler)
	status, body, _ := do(t, s, "GET", "/ok")
	assert.Equal(t, 200, status)
	assert.Equal(t, "ok", body)
}

// TestInjectInsideAHijackedHandler: a hijacked handler that serves
// messages in process with Inject and its own request's context (a
// WebSocket dispatching them to routes) is still running when those
// requests end, whether they answer or abort: Close waits for it.
func TestInjectInsideAHijackedHandler(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		check      func(t *testing.T, res *http.Response, err error)
	}{
		{"an answer", "/ping", func(t *testing.T, res *http.Response, err error) {
			require.NoError(t, err)
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, "pong", string(b))
		}},
		{"an abort", "/abort", func(t *testing.T, _ *http.Response, err error) {
			assert.ErrorIs(t, err, http.ErrAbortHandler)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHijackTest(t)
			ctxs := make(chan context.Context, 1)
			addr, served := h.start(t, func(h *hijackTest) error {
				return errors.Join(
					h.s.Get("/ping", func() (string, error) { return "pong", nil }),
					h.s.Get("/abort", func() { panic(http.ErrAbortHandler) }),
					h.s.Get("/ws", func(req *httpx.Request, rep *httpx.Reply) error {
						ctxs <- req.Context()
						h.serveHijacked(rep.Raw())
						return nil
					}),
				)
			})
			conn, br := upgrade(t, addr, "/ws")
			res, err := h.s.Inject(httptest.NewRequest(http.MethodGet, tc.path, nil).WithContext(<-ctxs))
			tc.check(t, res, err)
			require.NoError(t, h.closeWhileHijacked(t, conn, br))
			require.NoError(t, <-served)
		})
	}
}
