package app_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

const timeoutBody = `{"statusCode":503,"code":"FST_ERR_REQUEST_TIMEOUT","error":"Service Unavailable","message":"Request timed out"}`

// TestDeadlineAnswers503WhileTheHandlerRuns: at the request time-out the
// client gets the documented 503 at once, although the handler ignores
// its context and answers later; that late answer is discarded.
func TestDeadlineAnswers503WhileTheHandlerRuns(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var late atomic.Value
	var seen atomic.Int32
	s := app.New(app.WithRequestTimeout(50 * time.Millisecond))
	s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen.Store(int32(rep.Status())) })
	s.Get("/stuck", func(rep *httpx.Reply) error {
		<-release // ignores its context
		err := rep.SetHeader("X-Late", "1").Send("late")
		late.Store(err == nil)
		return err
	})
	c := dial(t, serve(t, s))
	_, err := io.WriteString(c, "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil) // before the handler is released
	require.NoError(t, err, "the 503 comes at the deadline, not when the handler returns")
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	close(release)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.Equal(t, timeoutBody, string(b))
	assert.True(t, res.Close, "connection: close, since the handler still holds the connection")
	assert.Empty(t, res.Header.Get("X-Late"))

	// Nothing of the late answer reaches the client.
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Empty(t, string(rest))
	require.Eventually(t, func() bool { return seen.Load() != 0 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, int32(http.StatusServiceUnavailable), seen.Load(), "onResponse sees what the client got")
	assert.Equal(t, true, late.Load(), "the handler's Send does not fail: its reply is discarded")
}

// TestDeadlineDiscardsALateReplyInject is the same through Inject, which
// returns when the handler does.
func TestDeadlineDiscardsALateReplyInject(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestTimeout(20 * time.Millisecond))
	s.Get("/late", func(ctx context.Context, rep *httpx.Reply) error {
		<-ctx.Done()
		return rep.Send("late") // ignores why ctx ended
	})
	s.Get("/raw", func(ctx context.Context, rep *httpx.Reply) {
		<-ctx.Done()
		w := rep.Raw()
		w.WriteHeader(http.StatusAccepted)
		_, err := w.Write([]byte("raw"))
		assert.ErrorIs(t, err, http.ErrHandlerTimeout)
	})
	s.Get("/fast", func() (string, error) { return "fast", nil })
	for _, path := range []string{"/late", "/raw"} {
		status, body, h := do(t, s, "GET", path)
		assert.Equal(t, http.StatusServiceUnavailable, status, path)
		assert.Equal(t, timeoutBody, body, path)
		assert.Equal(t, "close", h.Get("Connection"), path)
	}
	status, body, _ := do(t, s, "GET", "/fast")
	assert.Equal(t, 200, status)
	assert.Equal(t, "fast", body)
}

// TestOnTimeoutRunsOnlyAtTheDeadline: a client that goes away runs
// onRequestAbort, never onTimeout, although both end the handler's
// context.
func TestOnTimeoutRunsOnlyAtTheDeadline(t *testing.T) {
	t.Parallel()
	var timeouts atomic.Int32
	aborted := make(chan struct{})
	finished := make(chan struct{})
	s := app.New(app.WithRequestTimeout(time.Minute))
	s.AddHook(app.OnTimeout, func() { timeouts.Add(1) })
	s.AddHook(app.OnRequestAbort, func() { close(aborted) })
	s.AddHook(app.OnResponse, func() { close(finished) })
	s.Get("/slow", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	addr := serve(t, s)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond) // let the request start
	require.NoError(t, c.Close())
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("onRequestAbort did not run")
	}
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not finish")
	}
	assert.Zero(t, timeouts.Load(), "onTimeout ran for a client that went away")
}

// TestHooksBesideTheHandlerCannotSend: onTimeout and onRequestAbort hooks
// run on another goroutine while the handler runs; a reply or a request
// decorator (which the handler's hooks may be changing) is refused at
// Ready, so exactly one reply is ever written.
func TestHooksBesideTheHandlerCannotSend(t *testing.T) {
	t.Parallel()
	type deps struct {
		app.In
		User string `name:"user"`
	}
	type services struct {
		app.In
		Clock *time.Location
	}
	tests := []struct {
		name string
		fn   any
		want string // "" when Ready succeeds
	}{
		{"reply", func(rep *httpx.Reply) error { return rep.Code(504).Send("late") }, "*httpx.Reply cannot be taken in onTimeout and onRequestAbort hooks"},
		{"request and reply", func(*httpx.Request, *httpx.Reply) error { return nil }, "*httpx.Reply cannot be taken"},
		{"typed reply", app.Typed(func(*httpx.Reply, context.Context) error { return nil }), "*httpx.Reply cannot be taken"},
		{"decorator", func(d deps) {}, `request decorator "user" (field User) cannot be taken`},
		{"request, logger, context, services", func(*httpx.Request, *zap.Logger, context.Context, services) {}, ""},
	}
	for _, kind := range []app.Hook{app.OnTimeout, app.OnRequestAbort} {
		for _, tt := range tests {
			t.Run(kind.String()+"/"+tt.name, func(t *testing.T) {
				s := app.New(app.WithRequestTimeout(time.Second))
				s.DecorateRequest("user", "anonymous")
				s.Decorate(time.UTC)
				s.Get("/", func() {}, app.WithHook(kind, tt.fn))
				err := s.Ready()
				if tt.want == "" {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, app.ErrInvalidHandler)
				assert.Contains(t, err.Error(), tt.want)
			})
		}
	}
}

// TestHooksBesideTheHandlerDoNotRace: what onTimeout and onRequestAbort
// hooks read (the request's id, logger, query, params) is theirs, so they
// do not race the handler filling the same lazily (run it with -race).
func TestHooksBesideTheHandlerDoNotRace(t *testing.T) {
	t.Parallel()
	var seen atomic.Int32
	s := app.New(app.WithRequestTimeout(time.Millisecond))
	use := func(req *httpx.Request) bool {
		req.Log().Debug("used")
		return req.ID() != "" && req.Query("q") == "1" && req.Param("id") == "7"
	}
	s.AddHook(app.OnTimeout, func(req *httpx.Request) {
		if use(req) {
			seen.Add(1)
		}
	})
	s.Get("/r/:id", func(ctx context.Context, req *httpx.Request) error {
		<-ctx.Done()
		use(req) // at the same moment as the hook
		return ctx.Err()
	})
	for range 20 {
		status, _, _ := do(t, s, "GET", "/r/7?q=1")
		require.Equal(t, http.StatusServiceUnavailable, status)
	}
	assert.Equal(t, int32(20), seen.Load(), "the hook sees the request's own id, query and params")
}

// TestAbortHandlerPanicBesideTheHandlerIsRecovered: panic(http.ErrAbortHandler)
// in an onTimeout or onRequestAbort hook used to kill the process: nothing
// recovers on their goroutine. It is logged as the hook's failure.
func TestAbortHandlerPanicBesideTheHandlerIsRecovered(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.ErrorLevel)
	aborted := make(chan struct{})
	s := app.New(app.WithLogger(zap.New(core)), app.WithRequestTimeout(30*time.Millisecond))
	s.AddHook(app.OnTimeout, func() { panic(http.ErrAbortHandler) })
	s.AddHook(app.OnRequestAbort, func() {
		defer close(aborted)
		panic(http.ErrAbortHandler)
	})
	s.Get("/wait", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	s.Get("/ok", func() (string, error) { return "ok", nil })

	// onTimeout, in process.
	status, _, _ := do(t, s, "GET", "/wait")
	assert.Equal(t, http.StatusServiceUnavailable, status)

	// onRequestAbort, over a socket whose client leaves.
	addr := serve(t, s)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("onRequestAbort did not run")
	}

	res, err := s.Inject(httptest.NewRequest("GET", "/ok", nil))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode, "still serving")
	require.Eventually(t, func() bool {
		return logs.FilterMessage("onTimeout hook failed").Len() >= 1 &&
			logs.FilterMessage("onRequestAbort hook failed").Len() >= 1
	}, 5*time.Second, time.Millisecond)
}

// TestReplyBegunBeforeTheDeadlineIsLeftAlone: a handler that started
// streaming before the deadline keeps its reply; only onTimeout's 503 is
// for replies not yet begun.
func TestReplyBegunBeforeTheDeadlineIsLeftAlone(t *testing.T) {
	t.Parallel()
	var timeouts atomic.Int32
	s := app.New(app.WithRequestTimeout(30 * time.Millisecond))
	s.AddHook(app.OnTimeout, func() { timeouts.Add(1) })
	s.Get("/stream", func(ctx context.Context, rep *httpx.Reply) error {
		w := rep.Raw()
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("before "))
		f, ok := w.(http.Flusher)
		if !ok {
			return errors.New("not a flusher")
		}
		f.Flush()
		<-ctx.Done()
		_, err := w.Write([]byte("after"))
		return err
	})
	addr := serve(t, s)
	res, err := http.Get("http://" + addr + "/stream")
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "before after", string(b))
	assert.Zero(t, timeouts.Load())
}
