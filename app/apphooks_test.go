package app_test

import (
	"context"
	"errors"
	"fmt"
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

func TestOnRegisterSeesEncapsulatedChildrenOnly(t *testing.T) {
	var seen []string
	s := app.New()
	s.OnRegister(func(c *app.Server) error { seen = append(seen, "root saw "+c.Path()); return nil })
	s.Register(func(a *app.Server) error {
		a.OnRegister(func(c *app.Server) error { seen = append(seen, "a saw "+c.Path()); return nil })
		a.Register(func(*app.Server) error { return nil }, app.Name("a1"))
		return a.Register(app.Wrap(func(*app.Server) error { return nil }, app.Name("wrapped")))
	}, app.Name("a"))
	s.Register(func(*app.Server) error { return nil }, app.Name("b"))
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{
		"root saw root > a",
		"root saw root > a > a1", "a saw root > a > a1",
		"root saw root > b",
	}, seen)

	s = app.New()
	s.OnRegister(func(c *app.Server) error { return errors.New("no") })
	s.Register(func(*app.Server) error { return nil }, app.Name("x"))
	err := s.Ready()
	var pe *app.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "plugin x (root > x) failed in an onRegister hook: no", err.Error())
}

// TestOnRegisterSeesPluginsRegisteredBeforeIt: plugins load at Ready, so
// the hook sees every child that loads after the OnRegister call, also
// one registered before it.
func TestOnRegisterSeesPluginsRegisteredBeforeIt(t *testing.T) {
	t.Parallel()
	var seen []string
	s := app.New()
	s.Register(func(a *app.Server) error {
		a.Register(func(*app.Server) error { return nil }, app.Name("before"))
		return a.OnRegister(func(c *app.Server) error { seen = append(seen, c.Path()); return nil })
	}, app.Name("a"))
	s.Register(func(*app.Server) error { return nil }, app.Name("early"))
	s.OnRegister(func(c *app.Server) error { seen = append(seen, "root saw "+c.Path()); return nil })
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{
		"root saw root > a",
		"root saw root > a > before", "root > a > before",
		"root saw root > early",
	}, seen)
}

func TestOnRouteEditsRoutesAndSeesTwins(t *testing.T) {
	var seen []string
	s := app.New()
	s.OnRoute(func(ro *app.RouteSpec) error {
		seen = append(seen, ro.Method+" "+ro.Path+" "+ro.Context)
		if strings.HasPrefix(ro.Path, "/old") {
			ro.Path = "/new" + strings.TrimPrefix(ro.Path, "/old")
		}
		return nil
	})
	s.Register(func(c *app.Server) error {
		c.OnRoute(func(ro *app.RouteSpec) error {
			if ro.Twin {
				ro.Method = "" // no HEAD for this context's routes
			}
			return nil
		})
		return c.Get("/old/x", func() (string, error) { return "x", nil })
	}, app.Name("c"))
	s.Get("/plain", func() (string, error) { return "p", nil })
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{
		"GET /plain root", "HEAD /plain root",
		"GET /old/x root > c", "HEAD /new/x root > c",
	}, seen, "parents' OnRoute hooks see descendants' routes, at Ready, whenever added")
	status, body, _ := do(t, s, "GET", "/new/x")
	assert.Equal(t, 200, status)
	assert.Equal(t, "x", body)
	status, _, _ = do(t, s, "GET", "/old/x")
	assert.Equal(t, 404, status)
	status, _, _ = do(t, s, "HEAD", "/new/x")
	assert.Equal(t, 405, status, "the twin was dropped")
	status, _, _ = do(t, s, "HEAD", "/plain")
	assert.Equal(t, 200, status)
}

// TestOnRouteDropsARouteByEmptyingItsMethod: a hook that empties a
// route's Method drops the route (and, for a GET, its HEAD twin), as it
// drops a twin.
func TestOnRouteDropsARouteByEmptyingItsMethod(t *testing.T) {
	t.Parallel()
	var seen []string
	s := app.New()
	s.OnRoute(func(ro *app.RouteSpec) error {
		seen = append(seen, ro.Method+" "+ro.Path)
		if strings.HasPrefix(ro.Path, "/internal") {
			ro.Method = ""
		}
		return nil
	})
	ok := func() (string, error) { return "ok", nil }
	s.Get("/internal", ok)
	s.Post("/internal/x", ok)
	s.Get("/public", ok)
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{"GET /internal", "POST /internal/x", "GET /public", "HEAD /public"}, seen,
		"a dropped GET has no twin")
	for _, tt := range []struct{ method, path string }{
		{"GET", "/internal"}, {"HEAD", "/internal"}, {"POST", "/internal/x"},
	} {
		status, _, _ := do(t, s, tt.method, tt.path)
		assert.Equal(t, http.StatusNotFound, status, tt.method+" "+tt.path)
	}
	status, body, _ := do(t, s, "GET", "/public")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "ok", body)
	require.Len(t, s.Routes(), 1)
	assert.Equal(t, "/public", s.Routes()[0].Path)
}

func TestOnReadyRunsParentsFirstAndCanFail(t *testing.T) {
	var order []string
	s := app.New()
	s.Register(func(c *app.Server) error {
		return c.OnReady(func() error { order = append(order, "child"); return nil })
	})
	s.OnReady(func() error {
		order = append(order, "root")
		assert.False(t, s.IsReady(), "not serving until every OnReady hook returned")
		return nil
	})
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{"root", "child"}, order)
	assert.True(t, s.IsReady())

	s = app.New()
	s.OnReady(func() error { return errors.New("db unreachable") })
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "onReady hook in root: db unreachable")
	assert.False(t, s.IsReady())
}

func TestCloseSequence(t *testing.T) {
	var order []string
	note := func(name string) func(context.Context) error {
		return func(context.Context) error { order = append(order, name); return nil }
	}
	s := app.New(app.WithDrainDelay(200 * time.Millisecond))
	listened := make(chan net.Addr, 1)
	s.OnListen(func(addr net.Addr) error { listened <- addr; return nil })
	s.OnClose(note("root onClose#1"))
	s.PreClose(note("root preClose"))
	s.Register(func(c *app.Server) error {
		c.OnClose(note("child onClose"))
		c.PreClose(note("child preClose"))
		return nil
	})
	s.OnClose(note("root onClose#2"))
	s.OnClose(func(context.Context) error { return errors.New("flush failed") })
	s.Get("/readyz", func(rep *httpx.Reply) error {
		if !s.IsReady() {
			return rep.Code(http.StatusServiceUnavailable).Send("draining")
		}
		return rep.Send("ok")
	})
	s.Get("/work", func() (string, error) { return "done", nil })
	require.NoError(t, s.Ready())
	addr, served := serveInBackground(t, s)
	assert.Equal(t, addr, (<-listened).String())

	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- s.Close(context.Background()) }()
	require.Eventually(t, func() bool { return !s.IsReady() }, time.Second, time.Millisecond)
	// During the drain delay readiness says no, and requests are still
	// served, on connections that close after the reply.
	for _, tc := range []struct{ path, want string }{
		{"/readyz", "503 draining"},
		{"/work", "200 done"},
	} {
		res, err := http.Get("http://" + addr + tc.path)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, tc.want, fmt.Sprintf("%d %s", res.StatusCode, b))
		assert.True(t, res.Close, "connection: close")
	}

	err := <-closed
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "onClose hook: flush failed")
	require.NoError(t, <-served)
	assert.Equal(t, []string{
		"root preClose", "child preClose",
		// The child's body ran at Ready, after every root call above.
		"child onClose", "root onClose#2", "root onClose#1",
	}, order)
}

func TestOnRequestAbortRunsWhenTheClientLeaves(t *testing.T) {
	aborted := make(chan string, 1)
	release := make(chan struct{})
	s := app.New()
	s.AddHook(app.OnRequestAbort, func(req *httpx.Request) { aborted <- req.URL().Path })
	started := make(chan struct{})
	s.Get("/slow", func(req *httpx.Request) error {
		close(started)
		select {
		case <-req.Context().Done():
		case <-release:
		}
		return nil
	})
	addr := serve(t, s)
	defer close(release)

	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = conn.Write([]byte("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"))
	require.NoError(t, err)
	<-started // the client leaves while the handler runs
	require.NoError(t, conn.Close())
	select {
	case path := <-aborted:
		assert.Equal(t, "/slow", path)
	case <-time.After(2 * time.Second):
		t.Fatal("onRequestAbort did not run")
	}
}

func TestRequestTimeoutRunsOnTimeoutAndAnswers503(t *testing.T) {
	timedOut := make(chan string, 1)
	s := app.New(app.WithRequestTimeout(50 * time.Millisecond))
	s.AddHook(app.OnTimeout, func(req *httpx.Request) { timedOut <- req.URL().Path })
	s.Get("/slow", func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return nil
		}
	})
	s.Get("/fast", func() (string, error) { return "fast", nil })
	status, body, _ := do(t, s, "GET", "/slow")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, `{"statusCode":503,"code":"FST_ERR_REQUEST_TIMEOUT","error":"Service Unavailable","message":"Request timed out"}`, body)
	select {
	case p := <-timedOut:
		assert.Equal(t, "/slow", p)
	case <-time.After(2 * time.Second):
		t.Fatal("onTimeout did not run")
	}
	status, _, _ = do(t, s, "GET", "/fast")
	assert.Equal(t, 200, status)
	select {
	case p := <-timedOut:
		t.Fatalf("onTimeout ran for %s", p)
	default:
	}
}
