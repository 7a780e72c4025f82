package app_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
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

// gate is a plugin body that signals when it starts and returns when
// released, so a test can act while Ready is loading plugins.
type gate struct {
	entered chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) plugin(p *app.Server) error {
	close(g.entered)
	<-g.release
	return p.Get("/gated", func() (string, error) { return "gated", nil })
}

// closing reports whether s answers as a server that has begun closing.
func closing(s *app.Server) bool {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	return w.Code == http.StatusServiceUnavailable && strings.Contains(w.Body.String(), "closing")
}

// waitClosing blocks until Close has begun on s.
func waitClosing(t *testing.T, s *app.Server) {
	t.Helper()
	require.Eventually(t, func() bool { return closing(s) }, 5*time.Second, time.Millisecond)
}

// returns waits for an error from c; a call that never returns fails the
// test instead of hanging it.
func returns(t *testing.T, c <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-c:
		return err
	case <-time.After(10 * time.Second):
		require.FailNow(t, what+" did not return")
		return nil
	}
}

func TestCloseDuringBootStopsTheBoot(t *testing.T) {
	t.Parallel()
	g := newGate()
	var later atomic.Bool
	var onClose atomic.Int32
	s := app.New()
	s.OnClose(func(context.Context) error { onClose.Add(1); return nil })
	s.Register(g.plugin, app.Name("slow"))
	s.Register(func(*app.Server) error { later.Store(true); return nil }, app.Name("later"))

	ready := make(chan error, 1)
	go func() { ready <- s.Ready() }()
	<-g.entered

	// Close from many goroutines at once, as a signal handler and a
	// deferred Close may: none panics, all return once it is done.
	const closers = 8
	closed := make(chan error, closers)
	for range closers {
		go func() { closed <- s.Close(context.Background()) }()
	}
	waitClosing(t, s)
	close(g.release)

	err := returns(t, ready, "Ready")
	require.ErrorIs(t, err, app.ErrClosed, "Ready does not undo a Close")
	assert.Contains(t, err.Error(), "Close was called while the server was starting")
	for range closers {
		assert.NoError(t, returns(t, closed, "Close"))
	}
	assert.False(t, later.Load(), "no plugin loads once Close has begun")
	assert.Equal(t, int32(1), onClose.Load(), "OnClose hooks run once")
	assert.False(t, s.IsReady())
	assert.ErrorIs(t, s.Ready(), app.ErrClosed, "and stays closed")
	assert.NoError(t, s.Close(context.Background()), "a later Close returns the first one's result")
	assert.True(t, closing(s))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	assert.ErrorIs(t, s.Serve(ln), app.ErrClosed, "Serve called after Close refuses to reopen the server")
	_, err = ln.Accept()
	assert.Error(t, err, "and closes its listener")
}

func TestCloseDuringOnReadyStopsTheBoot(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	var preClose atomic.Int32
	s := app.New()
	s.PreClose(func(context.Context) error { preClose.Add(1); return nil })
	s.OnReady(func() error { close(entered); <-release; return nil })
	ready := make(chan error, 1)
	go func() { ready <- s.Ready() }()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- s.Close(context.Background()) }()
	waitClosing(t, s)
	close(release)
	assert.ErrorIs(t, returns(t, ready, "Ready"), app.ErrClosed)
	assert.NoError(t, returns(t, closed, "Close"))
	assert.Equal(t, int32(1), preClose.Load())
	assert.False(t, s.IsReady())
}

func TestCloseDuringBootIsBoundedByItsContext(t *testing.T) {
	t.Parallel()
	g := newGate()
	var onClose atomic.Int32
	s := app.New()
	s.OnClose(func(context.Context) error { onClose.Add(1); return nil })
	s.Register(g.plugin)
	ready := make(chan error, 1)
	go func() { ready <- s.Ready() }()
	<-g.entered

	ctx, cancel := context.WithCancel(context.Background())
	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }()
	waitClosing(t, s)
	cancel()
	assert.ErrorIs(t, returns(t, closed, "Close"), context.Canceled, "Close stops waiting when its context ends")
	assert.Equal(t, int32(0), onClose.Load(), "nothing closes under a plugin body that is still running")

	close(g.release)
	assert.ErrorIs(t, returns(t, ready, "Ready"), app.ErrClosed)
	assert.Equal(t, int32(1), onClose.Load(), "the boot finishes the close when it stops")
	assert.NoError(t, s.Close(context.Background()))
}

func TestConcurrentFirstCallsShareOneBoot(t *testing.T) {
	t.Parallel()
	g := newGate()
	var boots atomic.Int32
	s := app.New()
	s.Register(func(p *app.Server) error { boots.Add(1); return g.plugin(p) })

	const callers = 8
	var started sync.WaitGroup
	started.Add(callers)
	results := make(chan string, callers)
	for range callers {
		go func() {
			started.Done()
			res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/gated", nil))
			if err != nil {
				results <- err.Error()
				return
			}
			results <- res.Status
		}()
	}
	started.Wait()
	<-g.entered
	close(g.release)
	for range callers {
		assert.Equal(t, "200 OK", <-results)
	}
	assert.Equal(t, int32(1), boots.Load(), "one boot, shared")
}

func TestConcurrentCallersShareAFailedBoot(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := app.New()
	s.Register(func(p *app.Server) error {
		_ = g.plugin(p)
		return errors.New("no database")
	}, app.Name("db"))
	const callers = 4
	errs := make(chan error, callers)
	for range callers {
		go func() { errs <- s.Ready() }()
	}
	<-g.entered
	close(g.release)
	var first error
	for range callers {
		err := returns(t, errs, "Ready")
		require.ErrorIs(t, err, app.ErrPlugin)
		if first == nil {
			first = err
		}
		assert.Same(t, first, err, "every caller gets the boot's error")
	}
}

func TestTwoServesAtOnceBothServe(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := app.New()
	s.Register(g.plugin)
	served := make(chan error, 2)
	var urls []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		urls = append(urls, "http://"+ln.Addr().String())
		go func() { served <- s.Serve(ln) }()
	}
	<-g.entered
	close(g.release)
	for _, url := range urls {
		var res *http.Response
		require.Eventually(t, func() bool {
			r, err := http.Get(url + "/gated")
			if err != nil {
				return false
			}
			res = r
			return true
		}, 5*time.Second, 5*time.Millisecond, "both listeners serve")
		assert.Equal(t, http.StatusOK, res.StatusCode)
		res.Body.Close()
	}
	require.NoError(t, s.Close(context.Background()))
	assert.NoError(t, returns(t, served, "Serve"))
	assert.NoError(t, returns(t, served, "Serve"))
}

func TestReadyFromAPluginBodyFailsAtOnce(t *testing.T) {
	t.Parallel()
	var fromBody, injectFromBody, fromOnRegister error
	s := app.New()
	s.OnRegister(func(c *app.Server) error { fromOnRegister = c.Ready(); return nil })
	s.Register(func(p *app.Server) error {
		fromBody = p.Ready()
		_, injectFromBody = p.Inject(httptest.NewRequest(http.MethodGet, "/", nil))
		return nil
	})
	require.NoError(t, s.Ready())
	for _, err := range []error{fromBody, injectFromBody, fromOnRegister} {
		require.ErrorIs(t, err, app.ErrAlreadyStarted)
		assert.Contains(t, err.Error(), "called from a plugin body")
	}
}

// servingGated calls Serve on a new server whose boot waits at a gate,
// and returns once that boot has started.
func servingGated(t *testing.T) (*app.Server, *gate, <-chan error) {
	t.Helper()
	g := newGate()
	s := app.New()
	s.Register(g.plugin)
	_, served := serveInBackground(t, s)
	<-g.entered
	return s, g, served
}

func TestListenReturnsNilWhenCloseInterruptsItsStart(t *testing.T) {
	t.Parallel()
	s, g, served := servingGated(t)
	closed := make(chan error, 1)
	go func() { closed <- s.Close(context.Background()) }()
	waitClosing(t, s)
	close(g.release)
	assert.NoError(t, returns(t, served, "Serve"), "a graceful Close ends Serve with nil, even during start-up")
	assert.NoError(t, returns(t, closed, "Close"))
}

// TestServeRacingCloseReturnsNil closes the server the moment it is
// ready, while Serve, which booted it, goes on to start its http.Server,
// many times, so that Close lands before, inside and after the moment
// Serve registers that server for Close to shut down: a graceful Close
// that began after Serve was called must end it with nil however the two
// interleave.
func TestServeRacingCloseReturnsNil(t *testing.T) {
	t.Parallel()
	for i := range 200 {
		s, g, served := servingGated(t) // Serve has been called: it is booting
		close(g.release)
		for !s.IsReady() {
			runtime.Gosched()
		}
		require.NoError(t, s.Close(context.Background()))
		require.NoError(t, returns(t, served, "Serve"), "round %d", i)
	}
}

func TestRegistrationsFromOnReadyFail(t *testing.T) {
	t.Parallel()
	noop := func(*httpx.Request, *httpx.Reply) error { return nil }
	got := map[string]error{}
	var lateClose atomic.Bool
	s := app.New()
	var child *app.Server
	s.Register(func(c *app.Server) error { child = c; return nil }, app.Name("child"))
	s.OnReady(func() error {
		for _, h := range []*app.Server{s, child} {
			for name, err := range map[string]error{
				"AddHook":            h.AddHook(app.OnRequest, noop),
				"Get":                h.Get("/late", noop),
				"Register":           h.Register(func(*app.Server) error { return nil }),
				"DecorateRequest":    h.DecorateRequest("late", 1),
				"Decorate":           h.Decorate(42),
				"SetErrorHandler":    h.SetErrorHandler(func(error) {}),
				"SetNotFoundHandler": h.SetNotFoundHandler(noop),
				"OnRoute":            h.OnRoute(func(*app.RouteSpec) error { return nil }),
				"OnReady":            h.OnReady(func() error { return nil }),
			} {
				got[name+" from "+h.Path()] = err
			}
		}
		// Hooks that run after Ready still apply.
		return s.OnClose(func(context.Context) error { lateClose.Store(true); return nil })
	})
	require.NoError(t, s.Ready())
	require.Len(t, got, 18)
	for name, err := range got {
		require.ErrorIs(t, err, app.ErrAlreadyStarted, name)
		assert.Contains(t, err.Error(), "OnReady", name)
	}
	status, _, _ := do(t, s, "GET", "/late")
	assert.Equal(t, http.StatusNotFound, status)
	require.NoError(t, s.Close(context.Background()))
	assert.True(t, lateClose.Load(), "an OnClose hook added by an OnReady hook runs")
}

// TestReadyFromTheRootHandleInABodyFailsAtOnce: a plugin body or hook
// that calls Ready, Listen or Inject through a handle other than its own
// (the root's, kept by a closure) fails at once, as through its own, and
// the boot goes on: waiting for the boot would wait for itself. So does
// one that closes the server that way. With or without the plugin
// time-out (which runs bodies on goroutines of their own).
func TestReadyFromTheRootHandleInABodyFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, timeout := range []time.Duration{time.Hour, 0} {
		t.Run(fmt.Sprint("plugin time-out ", timeout), func(t *testing.T) {
			t.Parallel()
			s := app.New(app.WithPluginTimeout(timeout))
			s.Get("/", func() {})
			got := map[string]error{}
			s.OnRegister(func(*app.Server) error { got["Ready from OnRegister"] = s.Ready(); return nil })
			s.Register(func(*app.Server) error {
				got["Ready from a body"] = s.Ready()
				got["Listen from a body"] = s.Listen("127.0.0.1:0")
				_, got["Inject from a body"] = s.Inject(httptest.NewRequest(http.MethodGet, "/", nil))
				return nil
			})
			s.OnReady(func() error { got["Ready from OnReady"] = s.Ready(); return nil })
			ready := make(chan error, 1)
			go func() { ready <- s.Ready() }()
			require.NoError(t, returns(t, ready, "Ready"), "the boot finishes")
			require.Len(t, got, 5)
			for name, err := range got {
				require.ErrorIs(t, err, app.ErrAlreadyStarted, name)
				assert.Contains(t, err.Error(), "called from a plugin body and would wait for itself", name)
			}
			status, _, _ := do(t, s, "GET", "/")
			assert.Equal(t, http.StatusOK, status)
			require.NoError(t, s.Close(context.Background()))
		})
	}
	t.Run("Close", func(t *testing.T) {
		t.Parallel()
		s := app.New(app.WithPluginTimeout(time.Hour))
		closed := make(chan error, 1)
		s.Register(func(*app.Server) error { closed <- s.Close(context.Background()); return nil })
		ready := make(chan error, 1)
		go func() { ready <- s.Ready() }()
		require.ErrorIs(t, returns(t, ready, "Ready"), app.ErrClosed, "the body closed the server during its boot")
		assert.NoError(t, <-closed)
	})
}

// TestFailedReadyIsReportedOnce: Ready returns its failure and logs
// nothing of it, so a main that prints what Ready returned reports it
// once. Listen returns it the same way.
func TestFailedReadyIsReportedOnce(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	s := app.New(app.WithLogger(zap.New(core)))
	s.Register(func(*app.Server) error { return errors.New("no database") }, app.Name("db"))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrPlugin)
	assert.Equal(t, "plugin db (root > db) failed: no database", err.Error())
	assert.Equal(t, err, s.Listen("127.0.0.1:0"))
	for _, e := range logs.All() {
		assert.Less(t, e.Level, zapcore.WarnLevel, "logged as well as returned: %s %v", e.Message, e.ContextMap())
	}
}

// TestReadyFromAGoroutineOfAHookEndsAtThePluginTimeout: a goroutine that
// a hook starts and waits for cannot be told from any other goroutine: its
// call waits for the boot, which waits for the hook, until the plugin
// time-out ends the wait.
func TestReadyFromAGoroutineOfAHookEndsAtThePluginTimeout(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithPluginTimeout(50 * time.Millisecond))
	var injected error
	hookDone := make(chan struct{})
	s.OnReady(func() error {
		defer close(hookDone)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, injected = s.Inject(httptest.NewRequest(http.MethodGet, "/", nil))
		}()
		<-done
		return nil
	})
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrPluginTimeout)
	assert.Contains(t, err.Error(), "onReady hook in root: timed out after 50ms")
	<-hookDone
	assert.Same(t, err, injected, "the waiting call gets the boot's result and returns")
}

// TestListenAfterCloseReturnsErrClosed: a closed server cannot be opened
// again (Fastify: FST_ERR_REOPENED_CLOSE_SERVER). Listen, ListenTLS and
// Serve called once Close has begun say so at once, and open nothing.
func TestListenAfterCloseReturnsErrClosed(t *testing.T) {
	t.Parallel()
	for _, draining := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "draining"}[draining], func(t *testing.T) {
			t.Parallel()
			var opts []app.Option
			if draining {
				opts = append(opts, app.WithDrainDelay(time.Hour))
			}
			s := app.New(opts...)
			s.Get("/", func() {})
			require.NoError(t, s.Ready())
			ctx, cancel := context.WithCancel(context.Background())
			closed := make(chan error, 1)
			go func() { closed <- s.Close(ctx) }()
			require.Eventually(t, func() bool { return !s.IsReady() }, 5*time.Second, time.Millisecond, "Close has begun")

			err := s.Listen("127.0.0.1:0")
			require.ErrorIs(t, err, app.ErrClosed)
			assert.Equal(t, "Listen was called after Close; a closed server cannot be opened again", err.Error())
			assert.ErrorIs(t, s.ListenTLS("127.0.0.1:0", "no-cert.pem", "no-key.pem"), app.ErrClosed,
				"refused before the certificate is read")
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			assert.ErrorIs(t, s.Serve(ln), app.ErrClosed)
			_, err = ln.Accept()
			assert.Error(t, err, "Serve closed its listener")
			_, err = s.Inject(httptest.NewRequest(http.MethodGet, "/", nil))
			if !draining {
				assert.ErrorIs(t, err, app.ErrClosed, "Inject cannot answer after Close")
			}
			cancel()
			<-closed
		})
	}
}
