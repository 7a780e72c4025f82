package app

import (
	"context"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/httpx"
)

// Observer hears of the requests a context serves: those of its routes
// and of its descendants' routes, its not-found handler's (and those of
// its descendants'), and the 405 answers for the paths it owns. It is
// what metrics and tracing plugins build on: each call gets the route's
// pattern and context, which a middleware cannot see.
//
// Start runs once the request is routed, before the access log's first
// line and any middleware; End once the client has its response (or the
// connection failed), after the onResponse hooks and the access log's
// last line. Both run on the request's goroutine and delay it: do no I/O
// there. Any field may be nil. A panic in them is not recovered.
type Observer struct {
	// Start may return the context the request is then served with (one
	// derived from the request's: a span's), or nil to leave it; an
	// observer registered after it sees that context.
	Start func(Observation) context.Context
	End   func(Observation)
	// LogFields are fields every log line of the request carries, read
	// from its context once the observers started (trace ids): the
	// access log's, the request logger's, the error lines'.
	LogFields func(context.Context) []zap.Field
	// Step, when set, runs around each step of the requests of the
	// routes it observes: each hook of the request lifecycle (onRequest
	// to preHandler, onError, onResponse), the handler, and each request
	// value's constructor and cleanup (see Step's Kind). It may return
	// the context the step runs with (a span's; nil keeps the
	// request's), and a function told how the step ended: its error; nil
	// on success, and on a panic of a hook or the handler, which the
	// request's error path then reports (a cleanup's panic is its
	// error). The context is the request's again after the step, unless
	// the step set one itself. The routes of a context with no Step
	// observer pay nothing for it: the wrapping is done at Ready.
	Step func(ctx context.Context, s Step) (context.Context, func(error))
}

// Step is a function of a request's lifecycle, as Observer.Step hears
// of it.
type Step struct {
	// Kind is what the step is:
	//   - a hook's kind: "onRequest", "preParsing", "preValidation",
	//     "preHandler", "onError", "onResponse";
	//   - "handler": the route's handler;
	//   - "requestValue": the constructor of a request value
	//     (ProvideRequest), run the first time a hook or the handler of
	//     the request needs it, before that hook's or handler's step;
	//   - "cleanup": the cleanup that constructor returned (a
	//     transaction's commit or rollback), once the request is
	//     answered or about to be.
	Kind string
	// Name is the function's Go name without its package ("authHook",
	// "(*Todos).Get"), or "anonymous" for a function literal; for a
	// request value and its cleanup, the value's type ("*sql.Tx"), and
	// its name if it has one (`*sql.Tx named "ro"`).
	Name string
	// Failed is set for a cleanup told the request failed (a rollback
	// rather than a commit): an error, a panic or a status of 400 or
	// more, or a cleanup before it that failed.
	Failed bool
}

// Observation is one request as an Observer sees it. It is passed by
// value, so observing costs no allocation.
type Observation struct {
	// Request is the request: at Start as the server received it, at End
	// as its handler got it (through middleware that may have replaced
	// its context, with a span for instance), when a handler ran.
	Request *http.Request
	// Route is the matched route's path with its parameters in braces,
	// as http.Request.Pattern writes them ("/todos/{id}", a trailing
	// wildcard "{*...}"): a value for a label that does not grow with the
	// paths clients send. It is empty when no route matched (Match says
	// why).
	Route string
	// Context is the path of the context answering: the route's, the
	// not-found handler's, or the context owning a 405's path.
	Context string
	// Match is httpx.Found for a route, httpx.NoRoute for the not-found
	// handler and httpx.MethodNotAllowed for a 405.
	Match httpx.Match
	// Status, Size and Duration are set at End only: the status and
	// body size the client got, and the time since Start.
	Status   int
	Size     int64
	Duration time.Duration
}

// Observe adds o to this context: it observes the requests this context
// and its descendants serve, after the observers of their ancestors.
// Register it before Ready, like a hook.
func (s *Server) Observe(o Observer) error {
	return s.mutate("observer", func() error {
		if o.Start == nil && o.End == nil && o.LogFields == nil && o.Step == nil {
			return nil
		}
		s.n.observers = append(s.n.observers, o)
		return nil
	})
}

// compileObservers gives rt the observers of line, root first, their
// steps, and the pattern they report. It runs before rt's functions are
// planned: planFunc wraps them in the steps.
func (rt *route) compileObservers(line []*node) {
	for _, n := range line {
		rt.observers = append(rt.observers, n.observers...)
	}
	for _, o := range rt.observers {
		if o.Step != nil {
			rt.steps = append(rt.steps, o.Step)
		}
	}
	if rt.info.Method != "" {
		rt.observedRoute = routepath.Braced(rt.info.Path, "*...")
	}
}

// observation is what rt's observers hear of r; a 405 when allow is set.
func (rt *route) observation(r *http.Request, allow string) Observation {
	o := Observation{Request: r, Route: rt.observedRoute, Context: rt.info.Context, Match: httpx.Found}
	switch {
	case allow != "":
		o.Route, o.Match = "", httpx.MethodNotAllowed
	case o.Route == "":
		o.Match = httpx.NoRoute
	}
	return o
}

// start begins a request to rt whose id may be needed before Begin (one
// through middleware, a 405): when rt's requests are observed or logged,
// it takes the time it began (0 otherwise); when observed, it tells the
// observers (observeStart). It returns r with their context, and the
// request's logger.
func (rt *route) start(r *http.Request, allow string) (*http.Request, time.Duration, *zap.Logger) {
	if rt.observers == nil {
		var began time.Duration
		if rt.logging() {
			began = since()
		}
		return r, began, rt.node.log
	}
	began := since()
	r, log := rt.observeStart(r, allow)
	return r, began, log
}

// observeStart tells rt's observers r is served (a 405 when allow is
// set). It returns r with the context they gave it, and the logger of
// the request's lines: rt's context's, with the observers' fields.
func (rt *route) observeStart(r *http.Request, allow string) (*http.Request, *zap.Logger) {
	o := rt.observation(r, allow)
	for _, ob := range rt.observers {
		if ob.Start == nil {
			continue
		}
		if ctx := ob.Start(o); ctx != nil && ctx != o.Request.Context() {
			o.Request = o.Request.WithContext(ctx)
		}
	}
	log := rt.node.log
	var fields []zap.Field
	for _, ob := range rt.observers {
		if ob.LogFields != nil {
			fields = append(fields, ob.LogFields(o.Request.Context())...)
		}
	}
	if len(fields) > 0 {
		log = log.With(fields...)
	}
	return o.Request, log
}

// observeEnd tells rt's observers r got status and size, began after
// the server's epoch; x's request, when one began, is the one reported.
func (rt *route) observeEnd(x *exchange, r *http.Request, allow string, began time.Duration, status int, size int64) {
	if req := x.Request(); req != nil {
		r = req.Raw()
	}
	o := rt.observation(r, allow)
	o.Status, o.Size, o.Duration = status, size, since()-began
	for _, ob := range rt.observers {
		if ob.End != nil {
			ob.End(o)
		}
	}
}

// stepFunc is an Observer's Step.
type stepFunc = func(context.Context, Step) (context.Context, func(error))

// stepped is inv run as a step st of the observers' steps; inv itself
// when the route has none, or st has no kind (a function that is not a
// step: an error handler, an onTimeout hook).
func stepped(inv invoker, steps []stepFunc, st Step) invoker {
	if steps == nil || st.Kind == "" {
		return inv
	}
	return func(x *exchange, in error) (v any, err error) {
		end := beginStep(x, steps, st)
		defer func() { end(err) }()
		return inv(x, in)
	}
}

// beginStep tells steps that st begins in x's request, which then runs
// with the context they give it; the function it returns gives the
// request its context back and tells them how st ended.
func beginStep(x *exchange, steps []stepFunc, st Step) func(error) {
	req := x.Request()
	prev := req.Context()
	ctx := prev
	ends := make([]func(error), 0, len(steps))
	for _, step := range steps {
		c, end := step(ctx, st)
		if c != nil {
			ctx = c
		}
		if end != nil {
			ends = append(ends, end)
		}
	}
	if ctx != prev {
		req.SetContext(ctx)
	}
	return func(err error) {
		if ctx != prev && req.Context() == ctx {
			req.SetContext(prev)
		}
		for _, end := range slices.Backward(ends) {
			end(err)
		}
	}
}

// hookStep is the step of a hook of kind named name ("" for a function
// literal); no step for the hooks that run beside the handler.
func hookStep(kind Hook, name string) Step {
	if kind == OnTimeout || kind == OnRequestAbort {
		return Step{}
	}
	if name == "" {
		name = "anonymous"
	}
	return Step{Kind: kind.String(), Name: name}
}

// handlerStep is the step of the handler fn.
func handlerStep(fn any) Step {
	name := funcName(fn)
	if name == "" {
		name = "anonymous" // as hooks are named
	}
	return Step{Kind: "handler", Name: name}
}
