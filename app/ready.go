package app

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/goid"
)

// state of an instance; it only moves forward.
type state int32

const (
	stateRegistering state = iota
	stateBooting
	stateReady
	stateFailed
	stateDraining // Close called: not ready, still serving, drain delay running
	stateClosing
	stateClosed
)

// Ready loads every registered plugin, depth-first in registration order,
// then compiles every route and runs the OnReady hooks. It returns the
// first failure — a plugin error, a parameter a route cannot see, a
// duplicate decorator or route — wrapped with the context path, and the
// same error on every later call. After a successful Ready the server
// serves requests and refuses further registration. Listen, Serve and
// Inject call Ready themselves.
//
// Ready is safe to call from many goroutines: the first call boots, the
// others wait for that boot and return its result. A call made from a
// plugin body, an OnRegister or an OnReady hook — with the *Server it was
// given, or with another handle of the same server (the root's, kept by
// a closure) — fails at once with ErrAlreadyStarted instead, as it would
// wait for itself. (A goroutine such a body starts and waits for is not
// told apart: its call waits, until the plugin time-out.) If Close is
// called while Ready is booting, the boot stops at the next plugin or
// OnReady hook and Ready returns an error wrapping ErrClosed.
func (s *Server) Ready() error {
	a := s.a
	a.mu.Lock()
	for state(a.state.Load()) == stateBooting {
		if s.inBody || a.inBoot() {
			a.mu.Unlock()
			return errkind.New(ErrAlreadyStarted, "Ready (or Inject, Listen, Serve) was called from a plugin body and would wait for itself")
		}
		done := a.bootDone
		a.mu.Unlock()
		<-done
		a.mu.Lock()
	}
	switch state(a.state.Load()) {
	case stateReady:
		a.mu.Unlock()
		return nil
	case stateFailed:
		err := a.bootErr
		a.mu.Unlock()
		return err
	case stateDraining, stateClosing, stateClosed:
		err := a.closedErr()
		a.mu.Unlock()
		return err
	}
	a.state.Store(int32(stateBooting))
	a.bootDone = make(chan struct{})
	a.booting = map[uint64]int{goid.Current(): 1} // plugin bodies may run here
	err := a.bootErr
	queue := a.root.pending
	a.root.pending = nil
	a.mu.Unlock()

	if err == nil {
		start := time.Now()
		err = a.load(a.root, queue)
		a.mu.Lock()
		a.root.loadTime = time.Since(start)
		a.mu.Unlock()
	}
	a.mu.Lock()
	if err == nil {
		err = a.bootErr
	}
	if err == nil && a.stopping() {
		err = errClosedDuringBoot
	}
	if err == nil {
		err = a.compile()
		a.compiled = true
	}
	a.mu.Unlock()
	if err == nil {
		// Outside the lock: hooks may call HasPlugin and friends.
		err = a.runOnReady()
	}
	return a.endBoot(err)
}

// errClosedDuringBoot is what Ready returns when Close stopped the boot.
var errClosedDuringBoot = errkind.New(ErrClosed, "Close was called while the server was starting")

// stopping reports, under a.mu, whether Close has begun during the boot.
func (a *instance) stopping() bool { return state(a.state.Load()) != stateBooting }

// closedErr is what Ready answers once Close has begun.
func (a *instance) closedErr() error {
	if a.interrupted {
		return errClosedDuringBoot
	}
	return ErrClosed
}

// endBoot records the boot's outcome and wakes the callers waiting for
// it. If Close began during the boot, Close has been waiting for the boot
// to stop, so that nothing closes under a plugin body still running: the
// boot runs the close sequence itself, then reports errClosedDuringBoot.
func (a *instance) endBoot(err error) error {
	a.mu.Lock()
	if err == nil {
		err = a.bootErr
	}
	done := a.bootDone
	if a.stopping() {
		a.interrupted = true
		a.booting = nil
		ctx := a.closeCtx
		a.mu.Unlock()
		if err != nil && !errors.Is(err, ErrClosed) {
			a.log.Error("boot failed while closing", zap.Error(err))
		}
		close(done)
		_ = a.shutdown(ctx) // Close reports its result
		return errClosedDuringBoot
	}
	defer a.mu.Unlock()
	defer close(done)
	a.booting = nil
	if err != nil {
		// Returned, not logged as well: the caller reports it (a main
		// prints it and exits), and a log line with a stack besides would
		// report one failure twice.
		a.bootErr = err
		a.state.Store(int32(stateFailed))
		return err
	}
	a.state.Store(int32(stateReady))
	a.log.Debug("ready", zap.Int("routes", len(a.routes)))
	return nil
}

// IsReady reports whether the server serves requests: true from the end
// of a successful Ready until Close starts. Serve it as a readiness probe
// (for example GET /readyz answering 503 when false), so a load balancer
// stops sending traffic before the server drains.
func (s *Server) IsReady() bool { return state(s.a.state.Load()) == stateReady }

// load runs the plugins queued in n, depth-first: each plugin's own
// registrations load before the next plugin in queue. It stops before
// the next plugin once Close has begun.
func (a *instance) load(n *node, queue []*pendingPlugin) error {
	for _, p := range queue {
		a.mu.Lock()
		if a.stopping() {
			a.mu.Unlock()
			return errClosedDuringBoot
		}
		err := a.checkMeta(n, p)
		if err == nil {
			n.plugins = append(n.plugins, p.name)
		}
		a.mu.Unlock()
		if err != nil {
			return &PluginError{Plugin: p.name, Context: n.ctx.Path(), Err: err}
		}
		target := n
		if !p.wrapped {
			a.mu.Lock()
			target = a.child(n, p)
			a.mu.Unlock()
			if err := a.runOnRegister(target); err != nil {
				return &PluginError{Plugin: p.name, Context: target.ctx.Path(), Err: fmt.Errorf("failed in an onRegister hook: %w", err)}
			}
		}
		start := time.Now()
		rec := &loadRecord{name: p.name, wrapped: p.wrapped}
		if !p.wrapped {
			rec.child = target
		}
		h := &Server{a: a, n: target, inBody: true}
		a.mu.Lock()
		n.loaded = append(n.loaded, rec)
		if p.wrapped {
			h.from = p.name
			h.seq = &callSeq{base: p.pos}
		}
		a.mu.Unlock()
		if err := a.runPlugin(p, h); err != nil {
			return bodyFailed(p, target, err)
		}
		a.mu.Lock()
		sub := target.pending
		target.pending = nil
		err = a.bootErr
		a.mu.Unlock()
		if err != nil {
			return bodyFailed(p, target, fmt.Errorf("failed: %w", err))
		}
		if err := a.load(target, sub); err != nil {
			return err
		}
		a.mu.Lock()
		rec.took = time.Since(start)
		if !p.wrapped {
			target.loadTime = rec.took
		}
		a.mu.Unlock()
	}
	return nil
}

// bodyFailed is the error of p, whose body ran in target and failed with
// err. When err holds a *PluginError, a plugin p registered was refused:
// that one is the culprit, and its error already says where.
func bodyFailed(p *pendingPlugin, target *node, err error) error {
	var inner *PluginError
	if errors.As(err, &inner) {
		return inner
	}
	return &PluginError{Plugin: p.name, Context: target.ctx.Path(), Err: err}
}

// child creates the context of an encapsulated plugin below n.
func (a *instance) child(n *node, p *pendingPlugin) *node {
	ctx := n.ctx.Child(p.name)
	c := &node{
		ctx:    ctx,
		prefix: joinPrefix(n.prefix, p.prefix),
		log:    a.log.With(zap.String("context", ctx.Path())),
	}
	a.nodes[ctx] = c
	return c
}

// runPlugin runs one plugin body, bounded by the plugin time-out. A panic
// becomes an error.
func (a *instance) runPlugin(p *pendingPlugin, h *Server) error {
	if err := a.bounded(func() error { return p.fn(h) }); err != nil {
		if errors.Is(err, ErrPluginTimeout) {
			return err
		}
		return errkind.New(ErrPlugin, "failed: %w", err)
	}
	return nil
}

// bounded runs fn, a plugin body or an OnReady hook, turning a panic into
// an error, and returns ErrPluginTimeout if fn does not return within the
// plugin time-out. fn then keeps running on its goroutine until it
// returns, as Go cannot stop it.
func (a *instance) bounded(fn func() error) error {
	if a.cfg.pluginTimeout <= 0 {
		return protectCall(fn)
	}
	done := make(chan error, 1)
	go func() {
		defer a.enterBoot()()
		done <- protectCall(fn)
	}()
	t := time.NewTimer(a.cfg.pluginTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return errkind.New(ErrPluginTimeout, "timed out after %v", a.cfg.pluginTimeout)
	}
}

// enterBoot counts the running goroutine among the boot's, which run
// plugin bodies and hooks, until the returned function is called.
func (a *instance) enterBoot() (leave func()) {
	g := goid.Current()
	a.mu.Lock()
	if a.booting != nil {
		a.booting[g]++
	}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		if a.booting != nil {
			if a.booting[g]--; a.booting[g] <= 0 {
				delete(a.booting, g)
			}
		}
		a.mu.Unlock()
	}
}

// inBoot reports, under a.mu, whether the running goroutine is one of the
// boot's: a call from it that waited for the boot would wait for itself.
func (a *instance) inBoot() bool {
	return a.booting[goid.Current()] > 0
}
