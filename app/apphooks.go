package app

import (
	"context"
	"errors"
	"fmt"
	"net"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/errkind"
)

// Application hooks, as in Fastify, but typed. Each is registered in a
// context and is encapsulated like everything else, except OnClose, which
// runs for the whole server.
type appHooks struct {
	onRegister []func(*Server) error
	onRoute    []func(*RouteSpec) error
	onReady    []func() error
	onListen   []func(net.Addr) error
	preClose   []func(context.Context) error
}

// RouteSpec is a route as OnRoute hooks see it, before Ready compiles it.
// Hooks may change any field. (A RouteOption, by contrast, is an argument
// of Route that configures the route as it is registered.)
type RouteSpec struct {
	// Method is the route's method; a hook that empties it drops the
	// route (a GET's HEAD twin with it, which no hook then sees).
	Method  string
	Path    string
	Handler any
	// Context is the route's context path (read-only: changing it has no
	// effect).
	Context string
	// Twin is true for the route's HEAD twin: the HEAD route Burrow adds
	// for a GET route. "Twin" means only that; a prefixed plugin's "/"
	// route served at a second path is one route, not a twin.
	Twin bool

	config    *routeConfig // WithConfig's values, read with RouteConfig
	unguarded []Guard      // the guards of its contexts it is out of (Unguard)
}

// OnRegister adds fn to run for every encapsulated plugin of this context
// or a descendant that loads after this call, with the plugin's new
// context, before the plugin's body. Plugins load at Ready, so that
// includes the ones registered before the call (in a plugin body, the
// ones that body registered). Wrapped plugins get no context, so they do
// not trigger it. An error stops the boot.
func (s *Server) OnRegister(fn func(child *Server) error) error {
	return s.addAppHook("OnRegister hook", fn == nil, func() { s.n.app.onRegister = append(s.n.app.onRegister, fn) })
}

// OnRoute adds fn to run, at Ready, for every route of this context and its
// descendants (and for each GET route's HEAD twin), ancestors' hooks
// first. It may edit the route, or drop it by emptying its Method; an
// error stops the boot. A prefixed plugin's "/" route is one route, seen
// once with the prefix as its path ("/v1"); it also answers "/v1/" unless
// a hook changes its path.
func (s *Server) OnRoute(fn func(*RouteSpec) error) error {
	return s.addAppHook("OnRoute hook", fn == nil, func() { s.n.app.onRoute = append(s.n.app.onRoute, fn) })
}

// OnReady adds fn to run at the end of Ready, once every route compiled;
// parents' hooks run before children's. An error fails Ready.
func (s *Server) OnReady(fn func() error) error {
	return s.addAppHook("OnReady hook", fn == nil, func() { s.n.app.onReady = append(s.n.app.onReady, fn) })
}

// OnListen adds fn to run when Listen or Serve starts accepting on addr;
// parents' hooks first. Errors are logged: the server is already up.
func (s *Server) OnListen(fn func(addr net.Addr) error) error {
	return s.addLateHook("OnListen hook", fn == nil, func() { s.n.app.onListen = append(s.n.app.onListen, fn) })
}

// PreClose adds fn to run when Close starts, after readiness flipped and
// before in-flight requests are drained (close long-lived streams here so
// the drain can finish, and tell the handlers of hijacked connections,
// WebSockets, to say goodbye and return: Close waits for them before the
// OnClose hooks); parents' hooks first. Errors are returned by Close,
// joined.
func (s *Server) PreClose(fn func(ctx context.Context) error) error {
	return s.addLateHook("PreClose hook", fn == nil, func() { s.n.app.preClose = append(s.n.app.preClose, fn) })
}

// OnClose adds fn to run at the end of Close, once requests are drained
// and the handlers of hijacked connections have returned (or Close's
// context has ended).
// OnClose hooks of all contexts run in reverse order of registration, so
// what started last stops first. Errors are returned by Close, joined.
func (s *Server) OnClose(fn func(ctx context.Context) error) error {
	return s.addLateHook("OnClose hook", fn == nil, func() { s.a.onClose = append(s.a.onClose, fn) })
}

func (s *Server) addAppHook(what string, isNil bool, add func()) error {
	return s.mutate(what, appHook(s, isNil, add))
}

// addLateHook adds a hook that runs after Ready, which an OnReady hook may
// still add.
func (s *Server) addLateHook(what string, isNil bool, add func()) error {
	return s.mutateWhen(true, what, appHook(s, isNil, add))
}

func appHook(s *Server, isNil bool, add func()) func() error {
	return func() error {
		if isNil {
			return errkind.New(ErrInvalidHandler, "invalid application hook in %s: nil", s.Path())
		}
		add()
		return nil
	}
}

// runOnRegister runs the OnRegister hooks that apply to a new child c.
func (a *instance) runOnRegister(c *node) error {
	h := &Server{a: a, n: c, inBody: true}
	line := a.lineage(c)
	for _, p := range line[:len(line)-1] { // c's ancestors
		a.mu.Lock()
		hooks := p.app.onRegister
		a.mu.Unlock()
		for _, fn := range hooks {
			if err := fn(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// runOnRoute runs the OnRoute hooks that apply to a route of n.
func (a *instance) runOnRoute(n *node, ro *RouteSpec) error {
	for _, p := range a.lineage(n) {
		for _, fn := range p.app.onRoute {
			if err := fn(ro); err != nil {
				return err
			}
		}
	}
	return nil
}

// runOnReady runs every OnReady hook, parents first, each bounded by the
// plugin time-out, and stops before the next hook once Close has begun.
func (a *instance) runOnReady() error {
	return a.visit(func(n *node) error {
		for _, fn := range n.app.onReady {
			a.mu.Lock()
			stop := a.stopping()
			a.mu.Unlock()
			if stop {
				return errClosedDuringBoot
			}
			if err := a.bounded(fn); err != nil {
				return fmt.Errorf("onReady hook in %s: %w", n.ctx.Path(), err)
			}
		}
		return nil
	})
}

// runPreClose runs every PreClose hook, parents first, and joins errors.
func (a *instance) runPreClose(ctx context.Context) error {
	var errs []error
	a.walk(func(n *node) {
		for _, fn := range n.app.preClose {
			if err := protectCall(func() error { return fn(ctx) }); err != nil {
				errs = append(errs, fmt.Errorf("preClose hook in %s: %w", n.ctx.Path(), err))
			}
		}
	})
	return errors.Join(errs...)
}

// runOnClose runs every OnClose hook, last registered first.
func (a *instance) runOnClose(ctx context.Context) error {
	var errs []error
	for i := len(a.onClose) - 1; i >= 0; i-- {
		fn := a.onClose[i]
		if err := protectCall(func() error { return fn(ctx) }); err != nil {
			errs = append(errs, fmt.Errorf("onClose hook: %w", err))
		}
	}
	return errors.Join(errs...)
}

// runOnListen runs every OnListen hook, parents first; errors are logged.
func (a *instance) runOnListen(addr net.Addr) {
	a.walk(func(n *node) {
		for _, fn := range n.app.onListen {
			if err := protectCall(func() error { return fn(addr) }); err != nil {
				n.log.Error("onListen hook failed", zap.Error(err))
			}
		}
	})
}
