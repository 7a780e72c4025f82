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
	observers     []Observer   // its context's and its ancestors', root first
	steps         []stepFunc   // their Steps; nil for none
	observedRoute string       // the pattern observers hear; "" for a not-found route
	caching       *caching     // ETag, CacheControl, RequireIfMatch; nil for none
}

// routePlan is the part of a compiled route that httpx runs each request
// with: the decorators the route can see and its send hooks.
type routePlan = compiled.Route[httpx.Request, httpx.Reply]

// compile turns the loaded tree into the router and the compiled routes.
func (a *instance) compile() error {
	if err := a.visit((*node).checkLoaded); err != nil {
		return err
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
	var twins []headTwin
	err := a.visit(func(n *node) error {
		for _, def := range n.routes {
			tw, err := a.compileDef(n, def)
			if err != nil {
				return err
			}
			if tw.rt != nil {
				twins = append(twins, tw)
			}
		}
		return nil
	})
	if err != nil {
		return err
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

// checkLoaded refuses a plugin registered into n after n had loaded: it
// would never load.
func (n *node) checkLoaded() error {
	if len(n.pending) > 0 {
		return errkind.New(ErrInvalidPlugin, "plugin %s was registered into %s after that context had loaded",
			n.pending[0].name, n.ctx.Path())
	}
	return nil
}

// headTwin is the HEAD route Burrow adds for a GET route: the GET's
// compiled route, at paths. The twins are added once every route is, so
// that an explicit HEAD route wins.
type headTwin struct {
	paths []string
	rt    *route
}

// compileDef compiles the route def of n as its OnRoute hooks leave it,
// adds it to the router and, for a GET, returns its HEAD twin (zero when
// the hooks dropped it or the route).
func (a *instance) compileDef(n *node, def *routeDef) (headTwin, error) {
	ro := RouteSpec{Method: def.method, Path: def.path, Handler: def.handler, Context: n.ctx.Path(), config: def.config}
	if err := a.runOnRoute(n, &ro); err != nil {
		return headTwin{}, &RouteError{Method: def.method, Path: def.path, Context: n.ctx.Path(), Err: fmt.Errorf("failed in an onRoute hook: %w", err)}
	}
	if ro.Method == "" {
		return headTwin{}, nil // a hook dropped the route, and with it a GET's twin
	}
	if !httpmethod.Valid(ro.Method) {
		return headTwin{}, &RouteError{Method: def.method, Path: def.path, Context: n.ctx.Path(),
			Err: errkind.New(httpx.ErrInvalidMethod, "was given method %q by an onRoute hook: a method is an upper-case token", ro.Method)}
	}
	rt, err := a.compileRoute(n, ro.Method, ro.Path, ro.Handler, def.hooks, def.bodyLimit, def.multipart)
	if err != nil {
		return headTwin{}, err
	}
	rt.config, rt.caching = ro.config, def.caching
	paths := []string{ro.Path}
	if def.alias != "" && ro.Path == def.path {
		// A prefixed "/" route also answers at the prefix with a
		// slash, unless a hook moved it.
		paths = append(paths, def.alias)
	}
	for _, p := range paths {
		if err := a.router.Add(ro.Method, p, rt); err != nil {
			return headTwin{}, &RouteError{Method: ro.Method, Path: p, Context: n.ctx.Path(), Err: notAdded(err)}
		}
	}
	if ro.Method != anyMethod {
		rt.desc = a.describeRoute(n, def, &ro, rt.in)
		if err := checkPolicies(a.lineage(n), rt.desc); err != nil {
			return headTwin{}, err
		}
	}
	a.routes = append(a.routes, rt)
	if ro.Method != http.MethodGet {
		return headTwin{}, checkConfig(ro.config, ro.Method, ro.Path, n.ctx.Path())
	}
	// The HEAD twin shares the GET's compiled route (net/http drops
	// the body). OnRoute hooks see it too; of their edits, only
	// Path and an emptied Method (no twin) apply.
	tro := RouteSpec{Method: http.MethodHead, Path: ro.Path, Handler: ro.Handler, Context: ro.Context, Twin: true, config: ro.config}
	if err := a.runOnRoute(n, &tro); err != nil {
		return headTwin{}, &RouteError{Method: http.MethodHead, Path: ro.Path, Context: n.ctx.Path(), Err: fmt.Errorf("failed in an onRoute hook: %w", err)}
	}
	// The twin is the GET's compiled route: what its hooks set
	// is the GET's too.
	rt.config = tro.config
	if err := checkConfig(tro.config, ro.Method, ro.Path, n.ctx.Path()); err != nil || tro.Method == "" {
		return headTwin{}, err
	}
	if tro.Path != ro.Path {
		paths = []string{tro.Path}
	}
	return headTwin{paths: paths, rt: rt}, nil
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
		Path:    path,
		Pattern: path, //lint:ignore SA1019 filled while the deprecated field lasts
		Context: n.ctx.Path(),
	}
	rt.plan = a.newRoutePlan(n)
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
	rt.compileObservers(line)
	if h, ok := stdHandler(handler); ok {
		rt.handler = stepped(rt.serveStd(h), rt.steps, handlerStep(handler))
	} else if rt.handler, err = rt.planFunc(handler, withInput, handlerStep(handler)); err != nil {
		if invalidShape(err) {
			err = fmt.Errorf("has an invalid handler: %w", err)
		}
		return nil, fail(err)
	}
	if err = rt.compileAllHooks(line, own, withInput); err != nil {
		return nil, fail(err)
	}
	if err = checkHookOrder(line, own); err != nil {
		return nil, fail(err)
	}
	if rt.in, err = a.newInputPlan(n, path, bodyLimit, multipart, needs); err != nil {
		return nil, fail(err)
	}
	setSendHooks(&rt.plan, chain(line, PreSerialization, own), chain(line, OnSend, own))
	if rt.mw, err = wrapMiddleware(line, http.HandlerFunc(rt.next)); err != nil {
		return nil, fail(err)
	}
	if err = a.compileNotAllowed(n, line); err != nil {
		return nil, fail(err)
	}
	if err = rt.compileErrorHandlers(line); err != nil {
		return nil, fail(err)
	}
	return rt, nil
}

// newRoutePlan is the part of a route of n that httpx reads per request:
// the request decorators n can see, by name, and their starting values.
func (a *instance) newRoutePlan(n *node) routePlan {
	p := routePlan{Slots: map[string]int{}, Types: a.types}
	for _, d := range n.ctx.Visible(scope.Request) {
		p.Slots[d.Name] = d.Slot
	}
	for _, si := range a.initial {
		if slot, ok := p.Slots[si.decl.Name]; ok && slot == si.decl.Slot {
			p.Initial = append(p.Initial, compiled.SlotValue{Index: si.decl.Slot, Value: si.value})
		}
	}
	return p
}

// compileAllHooks plans the route's request hooks of every kind, those of
// its contexts (line, root first) then its own, each with what its phase
// may take: withInput where the input is decoded, nothing of it before.
func (rt *route) compileAllHooks(line []*node, own []hookDef, withInput planOptions) error {
	var err error
	for i, kind := range phases {
		opt := withInput
		if kind == OnRequest || kind == PreParsing {
			opt = planOptions{inputPhase: "in " + article(kind.String()) + " " + kind.String() + " hook, which runs before the body is parsed"}
		}
		if rt.phases[i], err = rt.compileHooks(line, kind, own, opt); err != nil {
			return err
		}
	}
	if rt.onResponse, err = rt.compileHooks(line, OnResponse, own, withInput); err != nil {
		return err
	}
	if rt.onError, err = rt.compileHooks(line, OnError, own, planOptions{allowError: true, inputs: withInput.inputs}); err != nil {
		return err
	}
	concurrent := planOptions{inputPhase: "in onTimeout and onRequestAbort hooks, which run beside the handler", beside: true}
	if rt.onTimeout, err = rt.compileHooks(line, OnTimeout, own, concurrent); err != nil {
		return err
	}
	if rt.onAbort, err = rt.compileHooks(line, OnRequestAbort, own, concurrent); err != nil {
		return err
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
	return nil
}

// compileErrorHandlers plans the error handlers of the route's contexts,
// nearest first: when one fails, the next gets its error.
func (rt *route) compileErrorHandlers(line []*node) error {
	for _, p := range slices.Backward(line) {
		if p.errorHandler == nil {
			continue
		}
		inv, err := rt.planFunc(p.errorHandler.fn, planOptions{allowError: true, inputPhase: "in an error handler"}, Step{})
		if err != nil {
			return phraseHook("error handler from "+p.ctx.Path(), err)
		}
		rt.errorHandlers = append(rt.errorHandlers, inv)
	}
	return nil
}

func (rt *route) compileHooks(line []*node, kind Hook, own []hookDef, opt planOptions) ([]invoker, error) {
	defs := chain(line, kind, own)
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]invoker, len(defs))
	for i, d := range defs {
		inv, err := rt.planFunc(d.fn, opt, hookStep(kind, d.name))
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
