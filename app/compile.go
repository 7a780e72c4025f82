package app

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/compiled"
	"github.com/burrow-go/burrow/internal/errkind"
	httpmethod "github.com/burrow-go/burrow/internal/method"
	"github.com/burrow-go/burrow/scope"
)

// route is a compiled route: everything a request needs, resolved at Ready.
type route struct {
	a             *instance
	node          *node
	info          httpx.RouteInfo
	handler       invoker
	phases        [len(phases)][]invoker
	onResponse    []invoker
	onError       []invoker
	onAbort       []invoker
	onTimeout     []invoker
	errorHandlers []invoker // the route's context's first, then ancestors'
	plan          routePlan
	in            *inputPlan // nil when no parameter asks for input
	hookNames     [numHooks][]string
	mw            http.Handler // the middleware around the lifecycle; nil without
	stdPattern    string       // the route as http.Request.Pattern holds it
	scoped        bool         // a function of the route takes a request value
	values        []*provider  // the request values its functions may build, in order
	types         *routeTypes  // a typed route's input and responses; nil for others
	status        int          // the success status of Status; 0 for none
	reflective    bool         // the handler is called through reflect.Value.Call
	desc          *RouteInfo   // for Routes; nil for a mount
	config        *routeConfig // WithConfig's values, and OnRoute hooks'; nil for none
}

// routePlan is the part of a compiled route that httpx runs each request
// with: the decorators the route can see and its send hooks.
type routePlan = compiled.Route[httpx.Request, httpx.Reply]

// compile turns the loaded tree into the router and the compiled routes.
func (a *instance) compile() error {
	var stray error
	a.walk(func(n *node) {
		if len(n.pending) > 0 && stray == nil {
			stray = errkind.New(ErrInvalidPlugin, "plugin %s was registered into %s after that context had loaded",
				n.pending[0].name, n.ctx.Path())
		}
	})
	if stray != nil {
		return stray
	}
	a.walk((*node).sortHooks)
	a.walk((*node).sortMiddleware)
	a.slots = a.root.ctx.Slots()
	a.types = make([]reflect.Type, a.slots)
	for _, si := range a.initial {
		a.types[si.decl.Slot] = si.decl.ValueType
	}
	if err := a.planProviders(); err != nil {
		return err
	}

	type headTwin struct {
		paths []string
		rt    *route
	}
	var twins []headTwin
	var errs error
	a.walk(func(n *node) {
		for _, def := range n.routes {
			if errs != nil {
				return
			}
			ro := RouteSpec{Method: def.method, Path: def.path, Handler: def.handler, Context: n.ctx.Path(), config: def.config}
			if err := a.runOnRoute(n, &ro); err != nil {
				errs = &RouteError{Method: def.method, Path: def.path, Context: n.ctx.Path(), Err: fmt.Errorf("failed in an onRoute hook: %w", err)}
				return
			}
			if ro.Method == "" {
				continue // a hook dropped the route, and with it a GET's twin
			}
			if !httpmethod.Valid(ro.Method) {
				errs = &RouteError{Method: def.method, Path: def.path, Context: n.ctx.Path(),
					Err: errkind.New(httpx.ErrInvalidMethod, "was given method %q by an onRoute hook: a method is an upper-case token", ro.Method)}
				return
			}
			rt, err := a.compileRoute(n, ro.Method, ro.Path, ro.Handler, def.hooks, def.bodyLimit, def.multipart)
			if err != nil {
				errs = err
				return
			}
			rt.config = ro.config
			paths := []string{ro.Path}
			if def.alias != "" && ro.Path == def.path {
				// A prefixed "/" route also answers at the prefix with a
				// slash, unless a hook moved it.
				paths = append(paths, def.alias)
			}
			for _, p := range paths {
				if err := a.router.Add(ro.Method, p, rt); err != nil {
					errs = &RouteError{Method: ro.Method, Path: p, Context: n.ctx.Path(), Err: notAdded(err)}
					return
				}
			}
			if ro.Method != anyMethod {
				rt.desc = a.describeRoute(n, def, ro.Method, ro.Path, ro.Handler, rt.in)
			}
			a.routes = append(a.routes, rt)
			if ro.Method != http.MethodGet {
				if errs = checkConfig(ro.config, ro.Method, ro.Path, n.ctx.Path()); errs != nil {
					return
				}
				continue
			}
			// The HEAD twin shares the GET's compiled route (net/http drops
			// the body). OnRoute hooks see it too; of their edits, only
			// Path and an emptied Method (no twin) apply.
			tro := RouteSpec{Method: http.MethodHead, Path: ro.Path, Handler: ro.Handler, Context: ro.Context, Twin: true, config: ro.config}
			if err := a.runOnRoute(n, &tro); err != nil {
				errs = &RouteError{Method: http.MethodHead, Path: ro.Path, Context: n.ctx.Path(), Err: fmt.Errorf("failed in an onRoute hook: %w", err)}
				return
			}
			// The twin is the GET's compiled route: what its hooks set
			// is the GET's too.
			rt.config = tro.config
			if errs = checkConfig(tro.config, ro.Method, ro.Path, n.ctx.Path()); errs != nil || tro.Method == "" {
				continue
			}
			tw := headTwin{paths: []string{tro.Path}, rt: rt}
			if tro.Path == ro.Path {
				tw.paths = paths
			}
			twins = append(twins, tw)
		}
	})
	if errs != nil {
		return errs
	}
	for _, tw := range twins {
		for _, p := range tw.paths {
			// An explicit HEAD route wins over a twin.
			if err := a.router.Add(http.MethodHead, p, tw.rt); err != nil && !errors.Is(err, httpx.ErrDuplicateRoute) {
				return &RouteError{Method: http.MethodHead, Path: p, Context: tw.rt.info.Context, Err: notAdded(err)}
			}
		}
	}
	return a.compileNotFound()
}

// compileRoute builds the compiled form of one route of n.
func (a *instance) compileRoute(n *node, method, path string, handler any, own []hookDef, bodyLimit int64, multipart MultipartLimits) (*route, error) {
	fail := func(err error) error {
		return &RouteError{Method: method, Path: path, Context: n.ctx.Path(), Err: err}
	}
	rt := &route{node: n, a: a}
	line := a.lineage(n)
	rt.info = httpx.RouteInfo{
		Method:  method,
		Pattern: path,
		Context: n.ctx.Path(),
	}
	rt.plan.Slots, rt.plan.Types = map[string]int{}, a.types
	for _, d := range n.ctx.Visible(scope.Request) {
		rt.plan.Slots[d.Name] = d.Slot
	}
	for _, si := range a.initial {
		if _, ok := rt.plan.Slots[si.decl.Name]; ok && rt.plan.Slots[si.decl.Name] == si.decl.Slot {
			rt.plan.Initial = append(rt.plan.Initial, compiled.SlotValue{Index: si.decl.Slot, Value: si.value})
		}
	}
	var err error
	needs := &inputNeeds{}
	withInput := planOptions{inputs: needs, route: newRouteShape(method, path)}
	rt.stdPattern = stdPattern(method, path)
	rt.reflective = reflective(handler)
	if th, ok := handler.(typedHandler); ok {
		types := th.types()
		rt.types, rt.status = &types, th.replyStatus()
		// A preSerialization hook may replace the value before it is
		// encoded: then the hook's answer is what must encode.
		if len(chain(line, PreSerialization, own)) == 0 {
			if err := checkEncodable(types.Body); err != nil {
				return nil, fail(fmt.Errorf("has an invalid handler: %w", err))
			}
		}
	}
	if h, ok := stdHandler(handler); ok {
		rt.handler = rt.serveStd(h)
	} else if rt.handler, err = rt.planFunc(handler, withInput); err != nil {
		if invalidShape(err) {
			err = fmt.Errorf("has an invalid handler: %w", err)
		}
		return nil, fail(err)
	}
	for i, kind := range phases {
		opt := withInput
		if kind == OnRequest || kind == PreParsing {
			opt = planOptions{inputPhase: "in " + article(kind.String()) + " " + kind.String() + " hook, which runs before the body is parsed"}
		}
		if rt.phases[i], err = rt.compileHooks(line, kind, own, opt); err != nil {
			return nil, fail(err)
		}
	}
	if rt.onResponse, err = rt.compileHooks(line, OnResponse, own, withInput); err != nil {
		return nil, fail(err)
	}
	if rt.onError, err = rt.compileHooks(line, OnError, own, planOptions{allowError: true, inputs: needs}); err != nil {
		return nil, fail(err)
	}
	concurrent := planOptions{inputPhase: "in onTimeout and onRequestAbort hooks, which run beside the handler", beside: true}
	if rt.onTimeout, err = rt.compileHooks(line, OnTimeout, own, concurrent); err != nil {
		return nil, fail(err)
	}
	if rt.onAbort, err = rt.compileHooks(line, OnRequestAbort, own, concurrent); err != nil {
		return nil, fail(err)
	}
	if rt.in, err = a.newInputPlan(n, path, bodyLimit, multipart, needs); err != nil {
		return nil, fail(err)
	}
	for kind := range Hook(numHooks) {
		for _, d := range chain(line, kind, own) {
			name := d.name
			if name == "" {
				name = "anonymous"
			}
			rt.hookNames[kind] = append(rt.hookNames[kind], name)
		}
	}
	setSendHooks(&rt.plan, chain(line, PreSerialization, own), chain(line, OnSend, own))
	if rt.mw, err = wrapMiddleware(line, http.HandlerFunc(rt.next)); err != nil {
		return nil, fail(err)
	}
	if err = a.compileNotAllowed(n, line); err != nil {
		return nil, fail(err)
	}
	for _, p := range slices.Backward(line) {
		if p.errorHandler == nil {
			continue
		}
		inv, err := rt.planFunc(p.errorHandler.fn, planOptions{allowError: true, inputPhase: "in an error handler"})
		if err != nil {
			return nil, fail(phraseHook("error handler from "+p.ctx.Path(), err))
		}
		rt.errorHandlers = append(rt.errorHandlers, inv)
	}
	return rt, nil
}

func (rt *route) compileHooks(line []*node, kind Hook, own []hookDef, opt planOptions) ([]invoker, error) {
	defs := chain(line, kind, own)
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]invoker, len(defs))
	for i, d := range defs {
		inv, err := rt.planFunc(d.fn, opt)
		if err != nil {
			what := kind.String() + " hook"
			if d.name != "" {
				what += " " + d.name
			}
			return nil, phraseHook(what, err)
		}
		out[i] = inv
	}
	return out, nil
}

// notAdded phrases a router error to follow a RouteError's route.
func notAdded(err error) error {
	if errors.Is(err, httpx.ErrDuplicateRoute) {
		return errkind.New(httpx.ErrDuplicateRoute, "is already registered")
	}
	return fmt.Errorf("cannot be added: %w", err)
}

// invalidShape reports whether a compile error is about the function's
// shape (its parameters or results) rather than what it needs.
func invalidShape(err error) bool {
	return errors.Is(err, ErrInvalidHandler) || errors.Is(err, ErrInvalidInput)
}

// phraseHook phrases a compile error of a hook or error handler (what)
// to follow a RouteError's route: "has an invalid onRequest hook: func()
// int must return error or (T, error)", "has an error handler from root
// that needs service *db.DB, which no context provides".
func phraseHook(what string, err error) error {
	if invalidShape(err) {
		return fmt.Errorf("has an invalid %s: %w", what, err)
	}
	return fmt.Errorf("has %s %s that %w", article(what), what, err)
}

// article is "a" or "an" for a hook or handler name.
func article(what string) string {
	if strings.HasPrefix(what, "on") || strings.HasPrefix(what, "error") {
		return "an"
	}
	return "a"
}

// setSendHooks sets the preSerialization and onSend hooks a route's
// replies run.
func setSendHooks(p *routePlan, pre, onSend []hookDef) {
	for _, d := range pre {
		p.PreSerialization = append(p.PreSerialization, d.fn.(PreSerializationFunc))
	}
	for _, d := range onSend {
		p.OnSend = append(p.OnSend, d.fn.(OnSendFunc))
	}
}
