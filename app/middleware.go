package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/internal/deadline"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/tracking"
)

// Middleware is a standard net/http middleware: it gets the next handler
// and returns one that may answer itself or call next.
type Middleware = func(http.Handler) http.Handler

type middlewareDef struct {
	fn    Middleware
	pos   []int // position of the Use call among its context's calls
	outer bool  // Outermost
}

// UseOption configures Use.
type UseOption func(*middlewareDef)

// Outermost places the middleware outside every other middleware of the
// routes it applies to, its ancestors' included: for a middleware that
// marks every answer of its context's routes, a refusal by an ancestor's
// middleware (a rate limit, a load shedder) too — a CORS policy, without
// which the browser hides that refusal behind a CORS error. It still
// applies to its context and its descendants only. Outermost middleware
// run in the order plain middleware do (the ancestors' outside, then the
// order of the calls), outside all the plain ones; one that answers by
// itself (a CORS preflight) answers before any ancestor's middleware
// runs.
func Outermost() UseOption { return func(d *middlewareDef) { d.outer = true } }

// Use adds mw to this context. It wraps the lifecycle of every route of
// this context and its descendants, and of the not-found handler a
// context of theirs sets: mw runs after routing and before the onRequest
// hooks, so it may answer (a CORS preflight, a refusal) without calling
// next, and then no request hook and no handler runs. The access log and
// the onResponse hooks sit outside every middleware: they see such a
// request too, with the status and size the middleware wrote. The
// ancestors' middleware is outermost, then this context's in the order
// of the calls — whether Use was called before or after the routes and
// plugins it applies to, as AddHook's hooks.
//
// The *http.Request mw sees carries the matched route in its Pattern
// field, written as ServeMux writes it ("GET /items/{id}"; a trailing
// wildcard is "{*...}"), and the path parameters through PathValue. A
// request mw passes on replaced (r.WithContext) is the one the hooks and
// the handler see: Request.Raw returns it and Request.Context is its
// context. mw is called at Ready, never per request: once per route, and
// once for the context's 405 answers.
//
// A request whose path has routes, but none for its method (a 405,
// OPTIONS in particular), goes through the middleware of the context
// owning the path before it is answered, so a CORS middleware answers
// the preflights of its context's paths. A path's owner is the context
// of its route compiled first: a context's routes before its
// children's, children in registration order. A CORS preflight (OPTIONS
// with an Access-Control-Request-Method the path serves) goes through
// the middleware of the context of that method's route instead, whoever
// owns the path: see Preflight and RouteConfigOf.
//
// Outermost places mw outside its ancestors' middleware too.
func (s *Server) Use(mw Middleware, opts ...UseOption) error {
	return s.mutate("middleware", func() error {
		if mw == nil {
			return errkind.New(ErrInvalidHandler, "invalid middleware in %s: nil", s.Path())
		}
		d := middlewareDef{fn: mw, pos: s.calls().take()}
		for _, o := range opts {
			o(&d)
		}
		s.n.middleware = append(s.n.middleware, d)
		return nil
	})
}

// sortMiddleware puts n's middleware in the order of the Use calls.
func (n *node) sortMiddleware() {
	slices.SortStableFunc(n.middleware, func(a, b middlewareDef) int { return slices.Compare(a.pos, b.pos) })
}

// wrapMiddleware wraps inner in the middleware of line (root first):
// root's outermost, the Outermost ones outside all others. It returns nil
// when line has none, so a route without middleware runs as before,
// unwrapped.
func wrapMiddleware(line []*node, inner http.Handler) (http.Handler, error) {
	var all, plain []middlewareDef
	for _, p := range line {
		for _, d := range p.middleware {
			if d.outer {
				all = append(all, d)
			} else {
				plain = append(plain, d)
			}
		}
	}
	all = append(all, plain...)
	if len(all) == 0 {
		return nil, nil
	}
	h := inner
	for _, d := range slices.Backward(all) {
		if h = d.fn(h); h == nil {
			return nil, errkind.New(ErrInvalidHandler, "has a middleware (%s) that returned a nil handler", funcName(d.fn))
		}
	}
	return h, nil
}

// stdPattern writes a route as ServeMux writes Request.Pattern: ":id"
// becomes "{id}", the wildcard "{*...}" (its parameter is "*").
func stdPattern(method, path string) string {
	if method == "" {
		return ""
	}
	if method == anyMethod {
		return routepath.Braced(path, "*...") // a mount: ServeMux's method-less form
	}
	return method + " " + routepath.Braced(path, "*...")
}

// callKey finds a request's call in the context middleware passes on.
type callKey struct{}

// Call states: next not called yet, running, done, and abandoned by
// the server (the middleware returned, or gave up on next while it
// runs).
const (
	callIdle int32 = iota
	callRunning
	callDone
	callOver
)

// call is the context a request goes through its middleware with: it
// finds the request's exchange again when the middleware calls next,
// whatever request and writer it passes. A call is used by one request
// only, and allocated on its own: a middleware may keep its context (a
// background job, a span), which must keep alive that request alone —
// calls allocated a batch at a time would keep the whole batch, every
// other request's context and writer with it.
type call struct {
	context.Context
	x     *exchange
	allow string // the Allow header of a 405
	// rt is the route whose config RouteConfigOf reads: the route served,
	// or for a 405 the route serving the method a preflight names (nil
	// when none does).
	rt    *route
	state atomic.Int32
	fail  bool // the lifecycle failed (for the request values' cleanups)

	// What the access log and the onResponse hooks report is what left
	// through the middleware: the writer handed to the outermost one
	// records it, whether next ran or not. A call is allocated for every
	// request through middleware, so these stay small: the request id
	// only when it is known before the lifecycle begins (the client's,
	// or the one the access log's first line gave), the start as an
	// offset on the monotonic clock, 0 when the request is not logged.
	tw     tracking.Writer
	id     string
	began  time.Duration
	logged bool        // the access log has the request's first line
	log    *zap.Logger // the request's: its context's, with the observers' fields
	vary   string      // the names Vary adds as the header goes, ", "-separated

	// reply is the reply time-out the middleware's first write of its own
	// arms (outerWriter); 0 once armed, or once the middleware set a
	// write deadline itself.
	reply time.Duration
}

func (c *call) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

func newCall(parent context.Context, x *exchange) *call {
	return &call{Context: parent, x: x}
}

// serveThrough serves r on rt through its middleware. It reports whether
// x is still the caller's: false when the middleware returned while
// next, on another goroutine, still serves the request — that goroutine
// then ends x, which does not go back to the pool, and the count of its
// connection if it was hijacked.
//
// The request is in the access log whether the middleware called next
// or answered itself, with the status and size that left through the
// middleware; a route's request (allow empty) runs the onResponse hooks
// too, a 405 (allow set) none, as it matched no route.
//
// target is the route whose config the middleware reads (RouteConfigOf):
// rt itself for a route's request, the preflight's route for a 405.
func (rt *route) serveThrough(x *exchange, w http.ResponseWriter, r *http.Request, h http.Handler, pattern, allow string, target *route) bool {
	r, began, log := rt.start(r, allow)
	c := newCall(r.Context(), x)
	c.allow, c.rt = allow, target
	c.tw.W = w
	c.reply = rt.a.replyTimeout
	c.began, c.log = began, log
	c.id, c.logged = rt.logStart(log, w, r)
	r2 := r.WithContext(c)
	r2.Pattern = pattern
	for _, p := range *x.Params() {
		r2.SetPathValue(p.Key, p.Value)
	}
	aborted, err := serveMiddleware(h, (*outerWriter)(c), r2)
	for {
		switch st := c.state.Load(); st {
		case callRunning:
			if c.state.CompareAndSwap(callRunning, callOver) {
				if aborted {
					panic(abortLeft{}) // next's goroutine ends the request
				}
				if err != nil { // next, still running, has the writer
					c.logPanic(rt, err)
				}
				return false
			}
		default:
			if c.state.CompareAndSwap(st, callOver) {
				if aborted {
					panic(http.ErrAbortHandler)
				}
				answered := allow == "" && st == callIdle // by the middleware
				if answered {
					x.Begin(&c.tw, r2, &rt.info, &rt.plan, c.seq(rt), c.id, c.log)
				}
				if err != nil {
					c.panicked(rt, r2, err, answered)
				}
				c.finish(rt, r)
				return true
			}
		}
	}
}

// outerWriter is the writer the outermost middleware is handed: the
// call's tracking.Writer, which records what left through the middleware,
// under a type of its own (no allocation) that arms the reply time-out at
// the first write the middleware makes before its next runs. A middleware
// that answers itself (a cache, static files) is then bounded as a reply
// is: a client that reads nothing does not hold the connection. What
// next writes is left alone: the reply arms its own deadline, and a
// handler may have set one of its own. So is a write deadline the
// middleware set first.
type outerWriter call

// writing is the call's tracking.Writer for a write, armed first if the
// write is the middleware's first.
func (w *outerWriter) writing() *tracking.Writer {
	c := (*call)(w)
	if c.state.Load() == callIdle && c.reply > 0 {
		deadline.SetReply(c.tw.W, time.Now().Add(c.reply), c.reply)
		c.reply = 0
	}
	if c.vary != "" && !c.tw.Started {
		c.addVary()
	}
	return &c.tw
}

// WriteHeader arms for a final status only: an informational one (103
// Early Hints) does not begin the reply, and next may still take long to
// produce it.
func (w *outerWriter) WriteHeader(status int) {
	if status < 200 {
		w.tw.WriteHeader(status)
		return
	}
	w.writing().WriteHeader(status)
}

func (w *outerWriter) Header() http.Header                          { return w.tw.Header() }
func (w *outerWriter) Write(p []byte) (int, error)                  { return w.writing().Write(p) }
func (w *outerWriter) ReadFrom(src io.Reader) (int64, error)        { return w.writing().ReadFrom(src) }
func (w *outerWriter) FlushError() error                            { return w.writing().FlushError() }
func (w *outerWriter) Flush()                                       { w.writing().Flush() }
func (w *outerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return w.tw.Hijack() }
func (w *outerWriter) Unwrap() http.ResponseWriter                  { return w.tw.Unwrap() }

// errNoWriteDeadline is SetWriteDeadline's error for a writer with no
// connection underneath (Inject's).
var errNoWriteDeadline = fmt.Errorf("set write deadline: %w", http.ErrNotSupported)

// SetWriteDeadline sets the connection's write deadline, as
// http.ResponseController does through Unwrap; set by the middleware
// before its first write, it wins over the one that write would arm.
func (w *outerWriter) SetWriteDeadline(t time.Time) error {
	c := (*call)(w)
	if c.state.Load() == callIdle {
		c.reply = 0
	}
	if !deadline.SetWrite(c.tw.W, t) {
		return errNoWriteDeadline
	}
	return nil
}

// serveMiddleware serves r through the middleware h, turning its panic
// into an error as a handler's is. It reports http.ErrAbortHandler as
// aborted: serveThrough panics on with it, for net/http to drop the
// connection, once it knows which goroutine ends the request.
func serveMiddleware(h http.Handler, w http.ResponseWriter, r *http.Request) (aborted bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if aborted = p == http.ErrAbortHandler; !aborted {
				err = errorOf(p)
			}
		}
	}()
	h.ServeHTTP(w, r)
	return false, nil
}

// panicked answers a middleware's panic, err, as a handler's: a bare 500,
// through the route's error path when the request went no further than
// the middleware (answered), written directly otherwise (a 405, or a next
// whose answer the middleware kept). A client that has its answer keeps
// it: the panic is only logged then.
func (c *call) panicked(rt *route, r *http.Request, err error, answered bool) {
	switch {
	case c.tw.Started:
		c.logPanic(rt, err)
	case answered:
		rt.fail(c.x, err) // logs it
	default:
		c.logPanic(rt, err)
		writeInternal(&c.tw, r, rt.a.cfg.errors)
	}
}

// logPanic logs a middleware's panic once, at error level, with its
// stack.
func (c *call) logPanic(rt *route, err error) {
	id := c.id
	if req := c.x.Request(); id == "" && req != nil {
		id = req.ID()
	}
	c.log.Error(err.Error(), zap.String("reqId", id), zap.Error(err))
}

// finish ends a request to rt served through middleware: the
// onResponse hooks for a route's (a 405 matched none), then the access
// log's last line.
func (c *call) finish(rt *route, r *http.Request) {
	status := c.tw.Status()
	if !c.tw.Started {
		status = http.StatusOK // what net/http answers for a handler that wrote nothing
	}
	if c.allow == "" {
		c.x.Answered(status)
		rt.onResponseHooks(c.x, c.fail)
	}
	if c.logged {
		rt.logEnd(c.log, c.id, c.began, status, c.tw.Size)
	}
	if rt.observers != nil {
		rt.observeEnd(c.x, r, c.allow, c.began, status, c.tw.Size)
	}
}

// seq numbers the request for Begin: a new number when its id is not
// known yet, none when it is (the number only makes the id).
func (c *call) seq(rt *route) uint64 {
	if c.id != "" {
		return 0
	}
	return rt.a.seq.Add(1)
}

// enter is where the middleware's next leads: the call of r, if it may
// still run (next is called once, while the middleware runs).
func enter(log *zap.Logger, w http.ResponseWriter, r *http.Request) *call {
	c, _ := r.Context().Value(callKey{}).(*call)
	if c == nil || !c.state.CompareAndSwap(callIdle, callRunning) {
		why := "a middleware called next twice or after it returned"
		if c == nil {
			why = "a middleware passed on a request whose context does not derive from the one it got"
		}
		log.Error("cannot serve the request: "+why, zap.String("url", r.RequestURI))
		w.WriteHeader(http.StatusInternalServerError)
		return nil
	}
	return c
}

// leave ends a call of a's entered with enter on rt; when the server has
// abandoned it, the exchange is this goroutine's to finish and end. A
// 405's next has no route at hand (rt nil): its log's last line is lost
// then, for a middleware that returned before its next.
func (c *call) leave(a *instance, rt *route, r *http.Request) {
	if !c.state.CompareAndSwap(callRunning, callDone) {
		if rt != nil {
			c.finish(rt, r)
		}
		c.x.end()
		a.conns.requestEnded(c.Context) // the server's goroutine left it to this one
	}
}

// next is the handler a route's middleware wraps: the route's lifecycle.
func (rt *route) next(w http.ResponseWriter, r *http.Request) {
	if c := enter(rt.node.log, w, r); c != nil {
		defer c.leave(rt.a, rt, r)
		c.fail = rt.lifecycle(c.x, w, r, c.seq(rt), c.id, c.log, false)
	}
}

// compileNotAllowed wraps the 405 answer in the middleware of n, whose
// lineage is line, once per context: a method a path of n's has no
// route for goes through them first.
func (a *instance) compileNotAllowed(n *node, line []*node) error {
	if n.notAllowedDone {
		return nil
	}
	n.notAllowedDone = true
	var err error
	n.notAllowed, err = wrapMiddleware(line, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := enter(n.log, w, r); c != nil {
			defer c.leave(a, nil, r)
			a.notAllowed(c.x, w, r, c.allow)
		}
	}))
	return err
}
