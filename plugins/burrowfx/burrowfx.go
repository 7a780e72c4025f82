package burrowfx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

// The value groups Module reads.
const (
	PluginGroup  = "burrow.plugins"
	ServiceGroup = "burrow.services"
)

// Config is what Module needs from the application (fx.Supply it).
type Config struct {
	// Addr is the address to listen on ("host:port"; default ":8080").
	Addr string
	// Options are app.New's options. A *zap.Logger in the fx graph comes
	// first, so a WithLogger here wins over it.
	Options []app.Option
}

// Plugin is a plugin contributed to the server through PluginGroup.
type Plugin struct {
	// Name orders plugins of the same Order, and names the plugin when
	// it is a function (an *app.Plugin keeps its own name).
	Name string
	// Order: plugins register in increasing Order, then by Name.
	Order int
	// Plugin is what app.Server.Register takes: a func(*app.Server)
	// error, or an *app.Plugin (app.Wrap for routes in the root).
	Plugin  any
	Options []app.PluginOption
}

// Service is a value contributed through ServiceGroup, decorated in the
// root context (app.Server.Decorate) before any plugin registers.
type Service struct {
	Value   any
	Options []app.DecorateOption
}

// AsPlugin annotates a constructor returning a Plugin for PluginGroup.
func AsPlugin(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"`+PluginGroup+`"`))
}

// AsService annotates a constructor returning a Service for
// ServiceGroup.
func AsService(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"`+ServiceGroup+`"`))
}

// Module provides the *app.Server and runs it with the application's
// lifecycle.
var Module = fx.Module("burrow",
	fx.Provide(newServer),
	fx.Invoke(func(*app.Server) {}), // the server runs even when nothing asks for it
)

// EventLogger makes fx log its events with the graph's *zap.Logger, the
// one Burrow logs with (fx's default logger otherwise writes to stderr).
var EventLogger = fx.WithLogger(func(p struct {
	fx.In
	Log *zap.Logger `optional:"true"`
}) fxevent.Logger {
	if p.Log == nil {
		return fxevent.NopLogger
	}
	return &fxevent.ZapLogger{Logger: p.Log.Named("fx")}
})

type params struct {
	fx.In
	Lifecycle  fx.Lifecycle
	Shutdowner fx.Shutdowner
	Config     Config      `optional:"true"`
	Log        *zap.Logger `optional:"true"`
	Plugins    []Plugin    `group:"burrow.plugins"`
	Services   []Service   `group:"burrow.services"`
}

func newServer(p params) (*app.Server, error) {
	var opts []app.Option
	if p.Log != nil {
		opts = append(opts, app.WithLogger(p.Log))
	}
	s := app.New(append(opts, p.Config.Options...)...)
	for _, svc := range p.Services {
		if err := s.Decorate(svc.Value, svc.Options...); err != nil {
			return nil, fmt.Errorf("burrowfx: supply %T: %w", svc.Value, err)
		}
	}
	plugins := slices.Clone(p.Plugins)
	slices.SortStableFunc(plugins, func(a, b Plugin) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.Name, b.Name))
	})
	for _, pl := range plugins {
		opts := pl.Options
		if _, ok := pl.Plugin.(*app.Plugin); !ok && pl.Name != "" {
			opts = append([]app.PluginOption{app.Name(pl.Name)}, opts...)
		}
		if err := s.Register(pl.Plugin, opts...); err != nil {
			return nil, fmt.Errorf("burrowfx: register plugin %q: %w", pl.Name, err)
		}
	}
	addr := cmp.Or(p.Config.Addr, ":8080")
	r := &runner{s: s, addr: addr, shutdowner: p.Shutdowner}
	p.Lifecycle.Append(fx.Hook{OnStart: r.start, OnStop: r.stop})
	return s, nil
}

// runner runs a server between fx's start and stop.
type runner struct {
	s          *app.Server
	addr       string
	shutdowner fx.Shutdowner
	served     chan error // Serve's result; nil before start
}

// start boots the server and listens, both before it returns, then
// serves in the background.
func (r *runner) start(ctx context.Context) error {
	if err := r.s.Ready(); err != nil {
		return fmt.Errorf("burrowfx: boot the server: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", r.addr)
	if err != nil {
		return errors.Join(fmt.Errorf("burrowfx: listen: %w", err), r.s.Close(ctx))
	}
	r.served = make(chan error, 1)
	go func() {
		err := r.s.Serve(ln)
		r.served <- err
		if err != nil {
			r.s.Log().Error("server stopped serving", zap.Error(err))
			_ = r.shutdowner.Shutdown(fx.ExitCode(1))
		}
	}()
	return nil
}

// stop closes the server within ctx, fx's stop time-out, and waits for
// Serve to return.
func (r *runner) stop(ctx context.Context) error {
	err := r.s.Close(ctx)
	if r.served == nil {
		return err
	}
	select {
	case serr := <-r.served:
		return errors.Join(err, serr)
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
}
