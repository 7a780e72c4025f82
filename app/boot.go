package app

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// Ready loads every registered plugin, depth-first in registration order,
// then compiles every route. It returns the first failure — a plugin
// error, a parameter a route cannot see, a duplicate decorator or route —
// wrapped with the context path, and the same error on every later call.
// After a successful Ready the server serves requests and refuses further
// registration. Listen and Inject call Ready themselves.
func (s *Server) Ready() error {
	a := s.a
	a.mu.Lock()
	switch state(a.state.Load()) {
	case stateReady:
		a.mu.Unlock()
		return nil
	case stateFailed:
		err := a.bootErr
		a.mu.Unlock()
		return err
	case stateClosing, stateClosed:
		a.mu.Unlock()
		return ErrClosed
	case stateBooting:
		a.mu.Unlock()
		return fmt.Errorf("%w: Ready called from a plugin body", ErrAlreadyStarted)
	}
	a.state.Store(int32(stateBooting))
	err := a.bootErr
	queue := a.root.pending
	a.root.pending = nil
	a.mu.Unlock()

	if err == nil {
		err = a.load(a.root, queue)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		err = a.bootErr
	}
	if err == nil {
		err = a.compile()
	}
	if err != nil {
		a.bootErr = err
		a.state.Store(int32(stateFailed))
		a.log.Error("boot failed", zap.Error(err))
		return err
	}
	a.state.Store(int32(stateReady))
	a.log.Debug("ready", zap.Int("routes", len(a.routes)))
	return nil
}

// compile turns the loaded tree into the router and the compiled routes.
func (a *instance) compile() error {
	var stray error
	a.root.walk(func(n *node) {
		if len(n.pending) > 0 && stray == nil {
			stray = fmt.Errorf("%w: plugin %s was registered into %s after that context had loaded",
				ErrInvalidPlugin, n.pending[0].name, n.ctx.Path())
		}
	})
	if stray != nil {
		return stray
	}
	a.slots = a.root.ctx.Slots()
	a.types = make([]reflect.Type, a.slots)
	for _, si := range a.initial {
		a.types[si.decl.Slot] = si.decl.ValueType
	}

	var gets []*route
	var errs error
	a.root.walk(func(n *node) {
		if errs != nil {
			return
		}
		for _, def := range n.routes {
			rt, err := a.compileRoute(n, def.method, def.path, def.handler, def.hooks)
			if err != nil {
				errs = err
				return
			}
			if err := a.router.Add(def.method, def.path, rt); err != nil {
				errs = &RouteError{Method: def.method, Path: def.path, Context: n.ctx.Path(), Err: fmt.Errorf("cannot be added: %w", err)}
				return
			}
			a.routes = append(a.routes, rt)
			if def.method == http.MethodGet {
				gets = append(gets, rt)
			}
		}
	})
	if errs != nil {
		return errs
	}
	for _, rt := range gets {
		// The HEAD twin of a GET shares its compiled route; net/http drops
		// the body. An explicit HEAD route wins.
		if err := a.router.Add(http.MethodHead, rt.info.Pattern, rt); err != nil && !errors.Is(err, httpx.ErrDuplicateRoute) {
			return err
		}
	}
	return a.compileNotFound()
}

// compileRoute builds the compiled form of one route of n.
func (a *instance) compileRoute(n *node, method, path string, handler any, own []hookDef) (*route, error) {
	fail := func(err error) error {
		return &RouteError{Method: method, Path: path, Context: n.ctx.Path(), Err: err}
	}
	rt := &route{node: n, a: a}
	rt.info = httpx.RouteInfo{
		Method:  method,
		Pattern: path,
		Context: n.ctx.Path(),
		Slots:   map[string]int{},
		Types:   a.types,
	}
	for _, d := range n.ctx.Visible(scope.Request) {
		rt.info.Slots[d.Name] = d.Slot
	}
	for _, si := range a.initial {
		if _, ok := rt.info.Slots[si.decl.Name]; ok && rt.info.Slots[si.decl.Name] == si.decl.Slot {
			rt.info.Initial = append(rt.info.Initial, httpx.SlotValue{Index: si.decl.Slot, Value: si.value})
		}
	}
	var err error
	if rt.handler, err = compile(handler, n.ctx, compileOptions{}); err != nil {
		return nil, fail(err)
	}
	for i, kind := range phases {
		if rt.phases[i], err = compileHooks(n, kind, own, compileOptions{}); err != nil {
			return nil, fail(err)
		}
	}
	if rt.onResponse, err = compileHooks(n, OnResponse, own, compileOptions{}); err != nil {
		return nil, fail(err)
	}
	if rt.onError, err = compileHooks(n, OnError, own, compileOptions{allowError: true}); err != nil {
		return nil, fail(err)
	}
	rt.send = sendHooks(n.chain(PreSerialization, own), n.chain(OnSend, own))
	for p := n; p != nil; p = p.parent {
		if p.errorHandler == nil {
			continue
		}
		inv, err := compile(p.errorHandler.fn, n.ctx, compileOptions{allowError: true})
		if err != nil {
			return nil, fail(fmt.Errorf("has an invalid error handler from %s: %w", p.ctx.Path(), err))
		}
		rt.errorHandlers = append(rt.errorHandlers, inv)
	}
	return rt, nil
}

func compileHooks(n *node, kind Hook, own []hookDef, opt compileOptions) ([]invoker, error) {
	defs := n.chain(kind, own)
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]invoker, len(defs))
	for i, d := range defs {
		inv, err := compile(d.fn, n.ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("has an invalid %v hook %s: %w", kind, d.name, err)
		}
		out[i] = inv
	}
	return out, nil
}

// sendHooks chains the preSerialization and onSend hooks of a route into
// the httpx.SendHooks its replies run.
func sendHooks(pre, onSend []hookDef) *httpx.SendHooks {
	h := &httpx.SendHooks{}
	if len(pre) > 0 {
		fns := make([]PreSerializationFunc, len(pre))
		for i, d := range pre {
			fns[i] = d.fn.(PreSerializationFunc)
		}
		h.PreSerialization = func(r *httpx.Reply, payload any) (any, error) {
			var err error
			for _, f := range fns {
				if payload, err = f(r.Request(), r, payload); err != nil {
					return nil, err
				}
			}
			return payload, nil
		}
	}
	if len(onSend) > 0 {
		fns := make([]OnSendFunc, len(onSend))
		for i, d := range onSend {
			fns[i] = d.fn.(OnSendFunc)
		}
		h.OnSend = func(r *httpx.Reply, body []byte) ([]byte, error) {
			var err error
			for _, f := range fns {
				if body, err = f(r.Request(), r, body); err != nil {
					return nil, err
				}
			}
			return body, nil
		}
	}
	return h
}

// notFoundRoute answers unknown paths under prefix.
type notFoundRoute struct {
	prefix string
	rt     *route
}

func (a *instance) compileNotFound() error {
	var errs error
	a.root.walk(func(n *node) {
		if errs != nil || (n.notFound == nil && n != a.root) {
			return
		}
		handler := any(defaultNotFound)
		if n.notFound != nil {
			handler = n.notFound.fn
		}
		rt, err := a.compileRoute(n, "*", n.prefix+"/*", handler, nil)
		if err != nil {
			errs = err
			return
		}
		rt.info.Method, rt.info.Pattern = "", ""
		a.notFound = append(a.notFound, &notFoundRoute{prefix: n.prefix, rt: rt})
	})
	// Longest prefix first, so /api/x finds /api's handler before root's.
	for i := 1; i < len(a.notFound); i++ {
		for j := i; j > 0 && len(a.notFound[j].prefix) > len(a.notFound[j-1].prefix); j-- {
			a.notFound[j], a.notFound[j-1] = a.notFound[j-1], a.notFound[j]
		}
	}
	return errs
}

func defaultNotFound(req *httpx.Request, rep *httpx.Reply) error {
	return rep.Code(http.StatusNotFound).Send(httpx.NotFound(req.Raw()))
}

// findNotFound picks the not-found route whose prefix covers path.
func (a *instance) findNotFound(path string) *route {
	for _, nf := range a.notFound {
		if nf.prefix == "" || path == nf.prefix || strings.HasPrefix(path, nf.prefix+"/") {
			return nf.rt
		}
	}
	return nil
}

// walk visits n and its descendants, parents first.
func (n *node) walk(fn func(*node)) {
	fn(n)
	for _, k := range n.kids {
		k.walk(fn)
	}
}
