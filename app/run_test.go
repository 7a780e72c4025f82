package app_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/config"
	"github.com/burrow-go/burrow/httpx"
)

// runChildEnv, set, makes the test binary run runChild instead of the
// tests: a service whose main is app.Run.
const runChildEnv = "BURROW_RUN_CHILD"

// childConfig is the child's configuration.
type childConfig struct {
	Public string        `flag:"public" default:"127.0.0.1:0"`
	Admin  string        `flag:"admin" default:"127.0.0.1:0"`
	Drain  time.Duration `flag:"drain" default:"50ms" validate:"min=0"`
	Limit  int           `flag:"limit" default:"1" validate:"min=1"`
}

// runChild is a service's main, written with config.Load and app.Run: a
// public server and an admin one whose /readyz reports the public one's
// readiness, and a store closed after both. It prints what happens, one
// line each, on stdout; mode "broken" gives the public server a route
// that fails Ready.
func runChild(mode string) int {
	say := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	var cfg childConfig
	if err := config.Load(&cfg, config.EnvPrefix("CHILD_")); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return app.ExitCode(err)
	}
	public := app.New(app.WithDrainDelay(cfg.Drain))
	admin := app.New()
	admin.Get("/readyz", func(rep *httpx.Reply) error {
		if !public.IsReady() {
			return rep.Code(http.StatusServiceUnavailable).Send("closing")
		}
		return rep.Send("ready")
	})
	public.Get("/", func() (string, error) { return "hello", nil })
	if mode == "broken" {
		public.Get("/broken", func(struct {
			app.In
			Missing *net.TCPConn
		}) error {
			return nil
		})
	}
	var adminAddr atomic.Value // net.Addr, set on the admin server's goroutine
	public.OnListen(func(a net.Addr) error { say("public listening %s", a); return nil })
	admin.OnListen(func(a net.Addr) error { adminAddr.Store(a); say("admin listening %s", a); return nil })
	public.PreClose(func(context.Context) error {
		// The drain is over: the admin server still serves, and says
		// the public one is not ready.
		res, err := http.Get("http://" + adminAddr.Load().(net.Addr).String() + "/readyz")
		if err != nil {
			say("public closing: admin unreachable: %v", err)
			return nil
		}
		res.Body.Close()
		say("public closing: admin readyz %d", res.StatusCode)
		return nil
	})
	public.OnClose(func(context.Context) error { say("public closed"); return nil })
	admin.OnClose(func(context.Context) error { say("admin closed"); return nil })
	err := app.Run(context.Background(), app.Serving(public, cfg.Public), app.Serving(admin, cfg.Admin),
		app.Closing(closer(func() error { say("store closed"); return nil })))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
	}
	return app.ExitCode(err)
}

type closer func() error

func (c closer) Close() error { return c() }

// child is a running child process and the lines it printed.
type child struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *strings.Builder
}

func startChild(t *testing.T, mode string, env []string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...) // TestMain runs the child before reading any flag
	cmd.Env = append(append(os.Environ(), runChildEnv+"="+mode), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &child{cmd: cmd, lines: make(chan string, 100), stderr: &strings.Builder{}}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return c
}

// next is the child's next line, or "" once its output has ended.
func (c *child) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(time.Minute): // a hang, not a timing
		require.FailNow(t, "the child printed nothing for a minute")
		return ""
	}
}

// rest is every line the child prints until it exits, and its status.
func (c *child) rest(t *testing.T) ([]string, int) {
	t.Helper()
	var lines []string
	for l := c.next(t); l != ""; l = c.next(t) {
		lines = append(lines, l)
	}
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return lines, ee.ExitCode()
	}
	require.NoError(t, err)
	return lines, 0
}

// TestRunClosesInOrderOnASignal: on SIGTERM or SIGINT the public server's
// readiness fails first (the admin server says so through the drain),
// then it closes, then the admin server, then the store; the process
// exits 0.
func TestRunClosesInOrderOnASignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := startChild(t, "ok", nil)
			public, admin := c.next(t), c.next(t) // the servers start together, in either order
			if strings.HasPrefix(public, "admin") {
				public, admin = admin, public
			}
			require.True(t, strings.HasPrefix(public, "public listening "), public)
			require.True(t, strings.HasPrefix(admin, "admin listening "), admin)
			res, err := http.Get("http://" + strings.TrimPrefix(public, "public listening ") + "/")
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, "hello", string(body))

			require.NoError(t, c.cmd.Process.Signal(sig))
			lines, status := c.rest(t)
			assert.Equal(t, []string{"public closing: admin readyz 503", "public closed", "admin closed", "store closed"}, lines,
				"stderr: %s", c.stderr)
			assert.Equal(t, 0, status, "stderr: %s", c.stderr)
		})
	}
}

// TestRunFailsBeforeServing: a listener that cannot open or a server that
// cannot boot serves nothing, still closes the store, and exits 1; a
// configuration that is not valid exits 2, naming every invalid value.
func TestRunFailsBeforeServing(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { taken.Close() })

	t.Run("a port in use", func(t *testing.T) {
		t.Parallel()
		c := startChild(t, "ok", nil, "-admin", taken.Addr().String())
		lines, status := c.rest(t)
		assert.Equal(t, []string{"public closed", "admin closed", "store closed"}, lines, "nothing listened")
		assert.Equal(t, 1, status)
		assert.Contains(t, c.stderr.String(), "address already in use")
	})
	t.Run("a boot that fails", func(t *testing.T) {
		t.Parallel()
		c := startChild(t, "broken", nil)
		lines, status := c.rest(t)
		assert.Equal(t, []string{"public closed", "admin closed", "store closed"}, lines)
		assert.Equal(t, 1, status)
		assert.Contains(t, c.stderr.String(), "route GET /broken")
	})
	t.Run("a configuration that is not valid", func(t *testing.T) {
		t.Parallel()
		c := startChild(t, "ok", []string{"CHILD_PUBLIC_FILE=/nonexistent/public"}, "-limit", "0", "-drain", "soon")
		lines, status := c.rest(t)
		assert.Empty(t, lines)
		assert.Equal(t, 2, status)
		assert.Equal(t, "child: invalid configuration:\n"+
			"\tCHILD_PUBLIC_FILE open /nonexistent/public: no such file or directory (rule file)\n"+
			"\t-drain must be a duration, as 1s, 500ms or 1m30s (rule type)\n"+
			"\t-limit must be >= 1 (rule min)\n", c.stderr.String())
	})
}

// TestRunStopsWhenItsContextEnds: ctx's end is a signal's: a clean close
// and nil. Run with no server is an error.
func TestRunStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/", func() (string, error) { return "ok", nil })
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	s.OnListen(func(a net.Addr) error { addr <- a; return nil })
	closed := false
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, app.Serving(s, "127.0.0.1:0"), app.Closing(closer(func() error { closed = true; return nil })))
	}()
	res, err := http.Get("http://" + (<-addr).String() + "/")
	require.NoError(t, err)
	res.Body.Close()
	cancel()
	require.NoError(t, <-done)
	assert.True(t, closed)
	assert.False(t, s.IsReady())

	err = app.Run(context.Background())
	assert.ErrorContains(t, err, "no server")
}

// TestRunReturnsAServersFailure: a server that stops by itself (here
// closed from elsewhere) ends Run, which closes the others.
func TestRunReturnsAServersFailure(t *testing.T) {
	t.Parallel()
	a, b := app.New(), app.New()
	listening := make(chan struct{})
	b.OnListen(func(net.Addr) error { close(listening); return nil })
	done := make(chan error, 1)
	go func() {
		done <- app.Run(context.Background(), app.Serving(a, "127.0.0.1:0"), app.Serving(b, "127.0.0.1:0"))
	}()
	<-listening
	require.NoError(t, a.Close(context.Background()))
	err := <-done
	assert.ErrorContains(t, err, "stopped serving before Run was asked to stop")
	assert.False(t, b.IsReady())
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, app.ExitCode(nil))
	assert.Equal(t, 0, app.ExitCode(fmt.Errorf("usage: %w", flag.ErrHelp)))
	assert.Equal(t, 1, app.ExitCode(errors.New("listen tcp: address already in use")))
	assert.Equal(t, 2, app.ExitCode(fmt.Errorf("starting: %w", &config.Error{})))
}
