package burrowfx_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/burrowfx"
)

// store is a service fx builds and Burrow's handlers take.
type store struct{ greeting string }

// listening records the address the server listens on.
type listening struct {
	addr chan string
}

func newListening() *listening { return &listening{addr: make(chan string, 1)} }

func (l *listening) hook(s *app.Server) {
	s.OnListen(func(a net.Addr) error { l.addr <- a.String(); return nil })
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url) //nolint:noctx // a test's plain request
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// TestServesBetweenStartAndStop: plugins from the group in their stated
// order, services from fx in the root, a real listener; Stop closes it.
func TestServesBetweenStartAndStop(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	plugin := func(name string, ord int) any {
		return burrowfx.AsPlugin(func() burrowfx.Plugin {
			return burrowfx.Plugin{Name: name, Order: ord, Plugin: func(s *app.Server) error {
				mu.Lock()
				order = append(order, s.Name())
				mu.Unlock()
				return nil
			}}
		})
	}
	l := newListening()
	a := fxtest.New(t,
		burrowfx.Module,
		fx.Supply(burrowfx.Config{Addr: "127.0.0.1:0"}),
		fx.Provide(
			func() *store { return &store{greeting: "hello"} },
			burrowfx.AsService(func(st *store) burrowfx.Service { return burrowfx.Service{Value: st} }),
			plugin("b", 1), plugin("a", 1), plugin("z", 0),
			burrowfx.AsPlugin(func() burrowfx.Plugin {
				return burrowfx.Plugin{Name: "routes", Order: 2, Plugin: app.Wrap(func(s *app.Server) error {
					return s.Get("/hello", func(st *store) (string, error) { return st.greeting, nil })
				})}
			}),
		),
		fx.Invoke(l.hook),
	)
	a.RequireStart()
	addr := <-l.addr
	status, body := get(t, "http://"+addr+"/hello")
	assert.Equal(t, 200, status)
	assert.Equal(t, "hello", body)
	assert.Equal(t, []string{"z", "a", "b"}, order)
	a.RequireStop()
	_, err := net.DialTimeout("tcp", addr, time.Second)
	assert.Error(t, err, "the listener is closed")
}

// TestPortInUseFailsStart: the listen is part of Start (fx#600).
func TestPortInUseFailsStart(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	a := fx.New(burrowfx.Module, fx.Supply(burrowfx.Config{Addr: taken.Addr().String()}), fx.NopLogger)
	require.NoError(t, a.Err())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = a.Start(ctx)
	require.Error(t, err)
	assert.ErrorContains(t, err, "address already in use")
}

// TestMissingServiceFailsStart: Burrow's start-up check applies to what
// fx did not provide.
func TestMissingServiceFailsStart(t *testing.T) {
	t.Parallel()
	a := fx.New(burrowfx.Module, fx.NopLogger,
		fx.Supply(burrowfx.Config{Addr: "127.0.0.1:0"}),
		fx.Provide(burrowfx.AsPlugin(func() burrowfx.Plugin {
			return burrowfx.Plugin{Name: "routes", Plugin: app.Wrap(func(s *app.Server) error {
				return s.Get("/hello", func(st *store) (string, error) { return st.greeting, nil })
			})}
		})),
	)
	require.NoError(t, a.Err())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := a.Start(ctx)
	require.Error(t, err)
	assert.ErrorContains(t, err, "burrowfx_test.store")
}

// TestStopDrainsInFlightRequests: a request in flight when Stop begins
// is answered before Stop returns.
func TestStopDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	l := newListening()
	a := fxtest.New(t, burrowfx.Module,
		fx.Supply(burrowfx.Config{Addr: "127.0.0.1:0"}),
		fx.Provide(burrowfx.AsPlugin(func() burrowfx.Plugin {
			return burrowfx.Plugin{Name: "slow", Plugin: app.Wrap(func(s *app.Server) error {
				return s.Get("/slow", func(rep *httpx.Reply) error {
					close(entered)
					<-release
					return rep.Send("done")
				})
			})}
		})),
		fx.Invoke(l.hook),
	)
	a.RequireStart()
	addr := <-l.addr
	type result struct {
		status int
		body   string
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Get("http://" + addr + "/slow") //nolint:noctx // a test's plain request
		if err != nil {
			got <- result{}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		got <- result{res.StatusCode, string(b)}
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- a.Stop(ctx)
	}()
	close(release)
	assert.Equal(t, result{200, "done"}, <-got)
	assert.NoError(t, <-stopped)
}

// TestEventLoggerOnBurrowsCore: fx's events and Burrow's lines go to the
// graph's logger.
func TestEventLoggerOnBurrowsCore(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	a := fxtest.New(t, burrowfx.Module, burrowfx.EventLogger,
		fx.Supply(burrowfx.Config{Addr: "127.0.0.1:0"}, zap.New(core)),
	)
	a.RequireStart()
	// Serve logs its line on its own goroutine, once the listener is
	// served: wait for it before stopping, or a stop that came first
	// would mean a server that never served.
	require.Eventually(t, func() bool { return logs.FilterMessage("server listening").Len() > 0 }, 10*time.Second, 5*time.Millisecond)
	a.RequireStop()
	var fxLines, burrowLines int
	for _, e := range logs.All() {
		switch {
		case e.LoggerName == "fx":
			fxLines++
		case e.Message == "server listening":
			burrowLines++
		}
	}
	assert.Positive(t, fxLines, "fx's events")
	assert.Equal(t, 1, burrowLines, "Burrow's own line")
}
