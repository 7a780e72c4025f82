package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/deadline"
	"github.com/burrow-go/burrow/internal/reqid"
)

var closeHeader = []string{"close"}

// ServeHTTP serves one request. Before Ready (and after a failed Ready)
// it answers 503; during Close's drain delay it serves with
// "connection: close"; after it, 503 with "connection: close".
//
// The path from here to a route's handler is kept shallow, the rare
// cases (not ready, 405, middleware, the access log, time-outs) in
// functions of their own: a handler that goes deep (a database driver)
// then stays within the goroutine's first stack, which every garbage
// collection shrinks back and the next deep call grows again by copying.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := s.a
	defer a.endAborted(r)
	if state(a.state.Load()) != stateReady && !a.admit(w, r) {
		return
	}
	x := a.pool.Get().(*exchange)
	rt, match, ok := a.lookup(x, w, r)
	switch {
	case match == httpx.Found && rt.mw == nil && rt.plain():
		// serve's plain case, here: one frame less under the handler.
		rt.begin(x, w, r)
		rt.onResponseHooks(x, rt.finish(x, rt.run(x), nil))
	case match == httpx.Found && rt.mw == nil:
		rt.serveTraced(x, w, r)
	case ok && !a.serveOther(x, w, r, rt, match):
		// x is a middleware's next to end, still running; net/http ends
		// the response, and reads the body, once we return.
		a.boundDrain(w, r)
		return
	}
	// A body the route's parser read to its end leaves nothing to read,
	// and costs no deadline. Behind middleware the parser read the copy of
	// r that carries the pattern: the body is the same.
	if d := x.DrainedBody(); d == nil || d.Body != r.Body {
		a.boundDrain(w, r)
	}
	x.end()
	a.pool.Put(x)
	a.conns.requestEnded(r.Context())
}

// lookup finds r's route, with its path parameters in x. When r cannot
// be routed at all, it answers 400 itself (see requestPath), and ok is
// false.
func (a *instance) lookup(x *exchange, w http.ResponseWriter, r *http.Request) (rt *route, match httpx.Match, ok bool) {
	path, escaped, ok := a.requestPath(x, w, r)
	switch {
	case !ok:
		return nil, httpx.NoRoute, false
	case escaped:
		rt, _, match = a.router.LookupEscaped(r.Method, path, x.Params())
	default:
		rt, _, match = a.router.Lookup(r.Method, path, x.Params())
	}
	return rt, match, true
}

// abortLeft is what serveThrough panics with for a middleware that
// aborted while its next, on a goroutine of its own, still serves the
// request: endAborted panics on with http.ErrAbortHandler and leaves the
// request's end to that goroutine.
type abortLeft struct{}

// endAborted, deferred by ServeHTTP, ends the count of a request whose
// serving panicked on to net/http (http.ErrAbortHandler, from a handler,
// a hook or a middleware), then panics on. net/http then drops the
// connection, unless it was hijacked: the request's end is all that
// uncounts such a connection, and without it Close would wait for a
// handler that has returned. Deferred, it costs a request no allocation.
func (a *instance) endAborted(r *http.Request) {
	p := recover()
	switch p {
	case nil:
		return
	case abortLeft{}:
		p = http.ErrAbortHandler
	default:
		a.conns.requestEnded(r.Context())
	}
	panic(p)
}

// admit is ServeHTTP's answer for a server that is not ready: during the
// drain delay it lets r in, with "connection: close"; before Ready and
// once closing, it answers 503 and reports false.
func (a *instance) admit(w http.ResponseWriter, r *http.Request) bool {
	switch state(a.state.Load()) {
	case stateReady:
		return true
	case stateDraining:
		w.Header()["Connection"] = closeHeader
		return true
	case stateClosing, stateClosed:
		w.Header()["Connection"] = closeHeader
		a.unavailable(w, r, "Server is closing")
	default:
		a.unavailable(w, r, "Server is not ready")
	}
	return false
}

// serveOther serves a request the router matched (match) to a route
// with middleware, or to no route: a 405 for a path with routes for other
// methods, through the middleware of the context of rt, the route that
// owns the path, or the not-found handler. It reports false when the
// request is not ServeHTTP's to end: a middleware's next, on a goroutine
// of its own, still serves it.
func (a *instance) serveOther(x *exchange, w http.ResponseWriter, r *http.Request, rt *route, match httpx.Match) bool {
	path, escaped, _ := routingPath(r.URL)
	switch match {
	case httpx.Found:
	case httpx.MethodNotAllowed:
		return a.serveNotAllowed(x, w, r, rt, path, escaped)
	default:
		if rt = a.findNotFound(path, escaped); rt == nil {
			return true
		}
	}
	if rt.mw == nil {
		rt.serve(x, w, r)
		return true
	}
	return rt.serveThrough(x, w, r, rt.mw, rt.stdPattern, "", rt)
}

// serveNotAllowed answers 405 for path, which rt owns: its context's
// middleware answers first (a CORS preflight), then the 405. A preflight
// naming a method the path serves is answered by the middleware of that
// method's route's context instead. It reports false as serveOther does.
func (a *instance) serveNotAllowed(x *exchange, w http.ResponseWriter, r *http.Request, rt *route, path string, escaped bool) bool {
	// The methods the path has are looked up again: a 405 is rare, and
	// carrying them from the first lookup costs every request stack room.
	ps := x.Params()
	*ps = (*ps)[:0]
	var allow string
	if escaped {
		_, allow, _ = a.router.LookupEscaped(r.Method, path, ps)
	} else {
		_, allow, _ = a.router.Lookup(r.Method, path, ps)
	}
	*ps = (*ps)[:0]
	var target *route
	if r.Method == http.MethodOptions {
		if target = a.preflightTarget(r, path, escaped, ps); target != nil {
			rt = target
		}
	}
	if h := rt.node.notAllowed; h != nil {
		return rt.serveThrough(x, w, r, h, "", allow, target)
	}
	rt.answerNotAllowed(x, w, r, allow)
	return true
}

// boundDrain bounds the read net/http makes of what is left of r's body
// once the handler returns (up to 256 KiB), even when the reply closes
// the connection. When the reply says "connection: close" (408, 413,
// draining) there is nothing to reuse: the read ends at once. Otherwise
// a body no route asked for is read then, with no deadline of its own:
// it is bounded like the body reads, or a slow sender would hold the
// connection forever.
func (a *instance) boundDrain(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	switch {
	case closing(w.Header()):
		deadline.SetRead(w, time.Unix(1, 0))
	case a.cfg.bodyTimeout > 0:
		deadline.SetRead(w, time.Now().Add(a.cfg.bodyTimeout))
	}
}

// serve serves one request on rt, which has no middleware: its
// lifecycle, then the onResponse hooks. A route whose requests are
// logged or observed, or that needs a guard around its handler (see
// guarded), is served by serveTraced; the others here, with as little
// between ServeHTTP and the handler as can be.
func (rt *route) serve(x *exchange, w http.ResponseWriter, r *http.Request) {
	if !rt.plain() {
		rt.serveTraced(x, w, r)
		return
	}
	rt.begin(x, w, r)
	rt.onResponseHooks(x, rt.finish(x, rt.run(x), nil))
}

// plain reports whether rt's requests are served without the access log,
// observers or a guard (see guarded): by begin, run and finish alone.
func (rt *route) plain() bool {
	return rt.observers == nil && !rt.guarded() && !rt.logging()
}

// begin begins a plain request on rt. Its own function, so that the room
// Begin's arguments take is not kept under the handler.
func (rt *route) begin(x *exchange, w http.ResponseWriter, r *http.Request) {
	seq, id := rt.a.number(w, r)
	_, rep := x.Begin(w, r, &rt.info, &rt.plan, seq, id, rt.node.log)
	rep.SetWriteTimeout(rt.a.replyTimeout)
}

// serveTraced serves one request on rt, which has no middleware: its
// lifecycle, between the two lines of the access log, then the
// onResponse hooks.
func (rt *route) serveTraced(x *exchange, w http.ResponseWriter, r *http.Request) {
	var began time.Duration
	logging, observed := rt.logging(), rt.observers != nil
	if logging || observed {
		began = since()
	}
	log := rt.node.log
	if observed {
		r, log = rt.observeStart(r, "")
	}
	seq, id := rt.a.number(w, r)
	failed := rt.lifecycle(x, w, r, seq, id, log, logging)
	rt.onResponseHooks(x, failed)
	if logging {
		rt.logEnd(log, x.Request().ID(), began, x.Reply().Status(), x.Written())
	}
	if observed {
		rt.observeEnd(x, r, "", began, x.Reply().Status(), x.Written())
	}
}

// number is what Begin identifies a request by: the id known before it
// begins (earlyID), or else its number, from which Request.ID makes one
// when it is asked for.
func (a *instance) number(w http.ResponseWriter, r *http.Request) (seq uint64, id string) {
	if id = a.earlyID(w, r); id == "" {
		seq = a.seq.Add(1)
	}
	return seq, id
}

// answerNotAllowed answers 405 for rt's path, whose context has no
// middleware, with allow the methods it has.
func (rt *route) answerNotAllowed(x *exchange, w http.ResponseWriter, r *http.Request, allow string) {
	r, began, log := rt.start(r, allow)
	id, logged := rt.logStart(log, w, r)
	rt.a.notAllowed(x, w, r, allow)
	if logged {
		rt.logEnd(log, id, began, http.StatusMethodNotAllowed, x.Written())
	}
	if rt.observers != nil {
		rt.observeEnd(x, r, allow, began, http.StatusMethodNotAllowed, x.Written())
	}
}

// logging reports whether rt's requests go to the access log.
func (rt *route) logging() bool {
	return rt.a.cfg.logRequests && rt.node.log.Core().Enabled(zap.InfoLevel)
}

// clientID is the request id r's client sent, if the server takes one
// and it is valid; empty for one generated from the request's number.
func (a *instance) clientID(r *http.Request) string {
	if a.cfg.requestIDHdr == "" {
		return ""
	}
	if id := r.Header.Get(a.cfg.requestIDHdr); validRequestID(id) {
		return id
	}
	return ""
}

// earlyID is r's id when it is known before the request begins: the id
// its client sent (clientID), or "". When the id is echoed in a
// response header, it is made now if the client sent none, and set in
// w's header, so that every answer carries it, a middleware's and a 405
// included.
func (a *instance) earlyID(w http.ResponseWriter, r *http.Request) string {
	id := a.clientID(r)
	if a.cfg.requestIDEcho == "" {
		return id
	}
	if id == "" {
		id = reqid.Of(a.seq.Add(1)) // as Request.ID makes it
	}
	w.Header()[a.cfg.requestIDEcho] = []string{id}
	return id
}

// logIncoming writes the access log's first line to log, the request's.
// With trusted proxies, it adds the client's address as clientIp;
// remoteAddress stays the peer's, the proxy that sent the request.
func (rt *route) logIncoming(log *zap.Logger, id string, r *http.Request) {
	if rt.a.clientIP != nil {
		log.Info("incoming request", zap.String("reqId", id),
			zap.String("method", r.Method), zap.String("url", r.RequestURI), zap.String("remoteAddress", r.RemoteAddr),
			zap.Stringer("clientIp", rt.a.clientIP(r)))
		return
	}
	log.Info("incoming request", zap.String("reqId", id),
		zap.String("method", r.Method), zap.String("url", r.RequestURI), zap.String("remoteAddress", r.RemoteAddr))
}

// logStart writes the access log's first line to log, the request's,
// for a request whose id is needed before any Begin (one answered
// through middleware, a 405): it returns that id and whether it logged;
// when rt's requests are not logged, the id is earlyID's.
func (rt *route) logStart(log *zap.Logger, w http.ResponseWriter, r *http.Request) (id string, logged bool) {
	id = rt.a.earlyID(w, r)
	if !rt.logging() {
		return id, false
	}
	if id == "" {
		id = reqid.Of(rt.a.seq.Add(1)) // as Request.ID makes it
	}
	rt.logIncoming(log, id, r)
	return id, true
}

// logEnd writes the access log's last line to log, the request's, with
// the status and size the client got, for a request logStart (or
// lifecycle) logged at began.
func (rt *route) logEnd(log *zap.Logger, id string, began time.Duration, status int, size int64) {
	log.Info("request completed", zap.String("reqId", id),
		zap.Int("statusCode", status), zap.Int64("responseSize", size),
		zap.Float64("responseTime", float64((since()-began).Microseconds())/1000))
}

// onResponseHooks runs the onResponse hooks, once the response is
// written, then the cleanups of the request values they built (failed
// when the request did), and gives back what the request borrowed from
// pools: the cells of its request values, its decoded input fields.
func (rt *route) onResponseHooks(x *exchange, failed bool) {
	for _, h := range rt.onResponse {
		if err := protect(h, x, nil); err != nil {
			x.Request().Log().Error("onResponse hook failed", zap.Error(err))
		}
	}
	if rt.scoped {
		rt.settleSent(x, failed)
		rt.releaseValues(x)
	}
	if rt.in != nil && rt.in.fields != nil {
		rt.in.fields.release(x) // the last reader of the input is done
	}
}

// epoch is what requests measure their duration from: a time.Duration
// since it reads the monotonic clock in 8 bytes, where a time.Time takes
// 24. since is never 0, which stands for "not logged".
var epoch = time.Now()

func since() time.Duration { return max(time.Since(epoch), 1) }

// guarded reports whether rt's handler runs under a guard that lifecycle
// sets up and serve does not: the request time-out, onRequestAbort hooks,
// request values to clean up, uploaded files to remove.
func (rt *route) guarded() bool {
	return rt.a.cfg.requestTimeout > 0 || len(rt.onAbort) > 0 || rt.scoped ||
		rt.in != nil && rt.in.fields != nil && len(rt.in.fields.files) > 0
}

// lifecycle runs the hooks and the handler of one request on rt, numbered
// seq, with id the client's request id (or empty). With logIncoming, it
// writes the access log's first line. It reports whether the request
// failed (an error, a panic, the time-out), for the cleanups of the
// request values the onResponse hooks build.
func (rt *route) lifecycle(x *exchange, w http.ResponseWriter, r *http.Request, seq uint64, id string, log *zap.Logger, logIncoming bool) (failed bool) {
	a := rt.a
	var dw *deadlineWriter
	if d := a.cfg.requestTimeout; d > 0 {
		ctx, cancel := context.WithTimeoutCause(r.Context(), d, errDeadline)
		defer cancel()
		dw = newDeadlineWriter(w, r, ctx, a.replyTimeout, a.cfg.errors)
		w = dw
	}
	req, rep := x.Begin(w, r, &rt.info, &rt.plan, seq, id, log)
	rep.SetWriteTimeout(a.replyTimeout)
	if logIncoming {
		rt.logIncoming(log, req.ID(), r)
	}

	if len(rt.onAbort) > 0 {
		defer rt.watchAbort(x, r.Context())()
	}
	if dw != nil {
		req.SetContext(dw.ctx)
		defer rt.watchDeadline(x, dw)()
	}
	if rt.scoped {
		defer rt.endValues(x)
	}
	if rt.in != nil && rt.in.fields != nil && len(rt.in.fields.files) > 0 {
		// Here, not with the onResponse hooks: a handler that aborts
		// (http.ErrAbortHandler) skips those, and the files must go.
		defer rt.in.fields.removeFiles(x, rt.node.log)
	}
	return rt.finish(x, rt.run(x), dw)
}

// finish answers what the hooks and the handler left unanswered, err
// (their error) or a reply they did not send, unless dw, the request
// time-out's writer, sent the time-out reply. It reports whether the
// request failed.
func (rt *route) finish(x *exchange, err error, dw *deadlineWriter) (failed bool) {
	expired := dw != nil && dw.expire()
	switch {
	case expired:
		// The client has the time-out reply; what the handler says now is
		// discarded.
		logExpired(x, err)
	case err != nil:
		rt.failSettled(x, err)
		if !x.Reply().Sent() {
			rt.sendEmpty(x)
		}
	case !x.Reply().Sent():
		rt.sendEmpty(x)
	}
	if dw != nil && dw.timedOut() {
		x.Answered(http.StatusServiceUnavailable) // what the client got
	}
	failed = expired || err != nil
	if rt.scoped {
		rt.settleSent(x, failed)
	}
	return failed
}

// sendEmpty answers for a handler that returned without answering: what
// it set (status, headers), with an empty body, as net/http would.
func (rt *route) sendEmpty(x *exchange) {
	rt.commitOnWrite(x)
	if err := sendProtected(x.Reply(), nil); err != nil {
		rt.failSettled(x, err)
	}
}

// logExpired logs the error of a handler whose request the time-out
// answered.
func logExpired(x *exchange, err error) {
	x.Request().Log().Error(errTimeout.Message,
		zap.Int("statusCode", http.StatusServiceUnavailable), zap.NamedError("handlerError", err))
}

// closing reports whether a reply's headers close the connection: a
// "close" token in its Connection header.
func closing(h http.Header) bool {
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// validRequestID accepts the ids callers commonly send (UUIDs, trace ids,
// ULIDs): 1 to 128 letters, digits and "-_.:". Anything else would let a
// client write what it likes, as long as it likes, into every log line
// of its request.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// watchAbort runs the onRequestAbort hooks if ctx, the client's, ends
// while the request is served. They run on their own goroutine, beside
// the handler, with a detached copy of the request: nothing they can
// touch is being changed by the handler, and they cannot send (Ready
// refuses a *httpx.Reply there). The returned function stops watching
// and waits for hooks already running.
func (rt *route) watchAbort(x *exchange, ctx context.Context) func() {
	d := x.detached()
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		rt.runBeside(rt.onAbort, d, "onRequestAbort")
	})
	return func() {
		if stop() {
			// A handler that saw ctx end can return before ctx's
			// cancellation reaches the AfterFunc; stop then wins, and the
			// hooks run here.
			if ctx.Err() != nil {
				rt.runBeside(rt.onAbort, d, "onRequestAbort")
			}
			return
		}
		<-done
	}
}

// watchDeadline answers 503 at the request time-out if the handler has
// not begun its reply, then runs the onTimeout hooks (beside the handler,
// like onRequestAbort's). The returned function stops watching and waits
// for hooks already running; if the deadline passed but the AfterFunc had
// not started, the hooks run then.
func (rt *route) watchDeadline(x *exchange, dw *deadlineWriter) func() {
	var d *exchange
	if len(rt.onTimeout) > 0 {
		d = x.detached()
	}
	done := make(chan struct{})
	stop := context.AfterFunc(dw.ctx, func() {
		defer close(done)
		if dw.expire() && d != nil {
			rt.runBeside(rt.onTimeout, d, "onTimeout")
		}
	})
	return func() {
		if !stop() {
			<-done
			return
		}
		if dw.expire() && d != nil {
			rt.runBeside(rt.onTimeout, d, "onTimeout")
		}
	}
}

// runBeside runs hooks that run beside the handler. Every panic is
// recovered, http.ErrAbortHandler included: nothing above this goroutine
// would, and there is no response of theirs to abort.
func (rt *route) runBeside(hooks []invoker, x *exchange, kind string) {
	for _, h := range hooks {
		err := protectCall(func() error {
			_, err := h(x, nil)
			return err
		})
		if err != nil {
			x.Request().Log().Error(kind+" hook failed", zap.Error(err))
		}
	}
}

// run runs the hooks before the handler, then the handler. A hook that
// sends a reply ends the chain.
func (rt *route) run(x *exchange) (err error) {
	defer recoverError(&err, true)
	if sent, err := rt.before(x); sent || err != nil {
		return err
	}
	if c := rt.caching; c != nil {
		if c.requireIfMatch && x.Request().Raw().Header["If-Match"] == nil {
			return preconditionRequired()
		}
		x.Validate(&c.v, "")
	}
	v, err := rt.handler(x, nil)
	if err != nil {
		return err
	}
	if rep := x.Reply(); (v != nil || rt.status != 0) && !rep.Sent() {
		rt.commitOnWrite(x)
		return rt.reply(x, rep, v)
	}
	return nil
}

// before runs the hooks of the phases before the handler, reading the
// body after preParsing and validating the input after preValidation. It
// reports whether a hook sent the reply. Called by run, it is done before
// the handler is called, so its frame is not under the handler's.
func (rt *route) before(x *exchange) (sent bool, err error) {
	rep := x.Reply()
	for i := range rt.phases {
		for _, h := range rt.phases[i] {
			if _, err := h(x, nil); err != nil {
				return false, err
			}
			if rep.Sent() {
				return true, nil
			}
		}
		if rt.in == nil {
			continue
		}
		switch phases[i] {
		case PreParsing:
			err = rt.in.decode(x)
		case PreValidation:
			err = rt.in.validate(x)
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// reply sends v, the handler's value, with the status its type (NoContent,
// Created) or the route (Status, which a Redirect takes too) declares. A
// send that fails before writing — a commit refused, an encoder, a send
// hook — gives the reply back its status from before, so that no error
// handler answers with the success status: the default one sets its own,
// but one of the user's may not.
func (rt *route) reply(x *exchange, rep *httpx.Reply, v any) error {
	before := rep.Status()
	var err error
	if t, ok := v.(Tagged); ok && rt.caching != nil && rt.caching.v.ETag {
		tag, err := quoted(t)
		if err != nil {
			return err
		}
		x.Validate(&rt.caching.v, tag)
	}
	if o, ok := v.(replier); ok {
		err = o.reply(rep, rt.status)
	} else {
		if rt.status != 0 {
			rep.Code(rt.status)
		}
		err = rep.Send(v)
	}
	if err != nil && !rep.Sent() {
		rep.Code(before)
	}
	return err
}

// failSettled answers err, once the cleanups of the request values the
// reply did not write have run, as failed: the error handlers get the
// values rolled back.
func (rt *route) failSettled(x *exchange, err error) {
	if rt.scoped && !x.Reply().Sent() {
		err = rt.settle(x, err)
	}
	rt.fail(x, err)
}

// logServerError logs err, answered with 5xx status, at error level,
// and the cause of the *httpx.Error it holds when the line does not
// already say it: the client was not told, so the log is where the
// driver's or the dial's words are read.
func logServerError(req *httpx.Request, err error, status int) {
	text := err.Error()
	fields := []zap.Field{zap.Int("statusCode", status), zap.Error(err)}
	var he *httpx.Error
	if errors.As(err, &he) && he.Err != nil && !strings.Contains(text, he.Err.Error()) {
		fields = append(fields, zap.NamedError("cause", he.Err))
	}
	req.Log().Error(text, fields...)
}

// fail answers err: onError hooks first, then the route's error handlers,
// each falling back to its parent's when it fails, then the default.
func (rt *route) fail(x *exchange, err error) {
	req, rep := x.Request(), x.Reply()
	// The lines go to the request's logger (reqId, trace ids), taken only
	// when a line is written: a refusal below debug costs nothing.
	if rep.Sent() {
		if clientGone(req.Context()) {
			// A stream whose client dropped it ends with an error (the
			// write's, the context's): the client's doing, logged at
			// debug, or every dropped stream would write an error line.
			req.Log().Debug("error after the reply was sent", zap.Error(err))
			return
		}
		req.Log().Error("error after the reply was sent", zap.Error(err))
		return
	}
	logPanic(req, err)
	for _, h := range rt.onError {
		if herr := protect(h, x, err); herr != nil {
			req.Log().Error("onError hook failed", zap.Error(herr))
		}
	}
	for _, h := range rt.errorHandlers {
		herr := protect(h, x, err)
		if herr == nil {
			if !rep.Sent() {
				herr = sendProtected(rep, nil)
			}
			if herr == nil {
				return
			}
		}
		if rep.Sent() {
			req.Log().Error("error handler failed after sending", zap.Error(herr))
			return
		}
		err = herr
		logPanic(req, err)
	}
	status, body := rt.a.cfg.errors.Body(err, req.Raw())
	if status >= 500 {
		if !recovered(err) { // a panic was logged, with its stack, as it came
			logServerError(req, err, status)
		}
	} else if rt.node.log.Core().Enabled(zap.DebugLevel) {
		// A refusal is the client's doing, so it is logged at debug: at
		// info, a flood of bad requests would write a line each, which
		// costs the server more than the refusal itself. Checked first,
		// so that building the message and the fields costs nothing when
		// debug is off.
		req.Log().Debug(err.Error(), zap.Int("statusCode", status))
	}
	rep.Code(status)
	if serr := sendProtected(rep, body); serr != nil {
		// A send hook failed on the error body itself: answer without hooks.
		req.Log().Error("cannot send the error response through the send hooks", zap.Error(serr))
		x.SkipSendHooks()
		if serr = sendProtected(rep, body); serr != nil {
			req.Log().Error("cannot send error response", zap.Error(serr))
		}
	}
}

// clientGone reports whether ctx, a request's, ended because its client
// went away: net/http cancels it then, with no cause of its own (the
// request time-out's is errDeadline, the server's closing
// httpx.ErrServerClosing).
func clientGone(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) == context.Canceled
}

// sendProtected sends v, turning a panic in an encoder or a send hook into
// an error, as protect does for hooks: the error path's own sends must
// not drop the connection.
func sendProtected(rep *httpx.Reply, v any) (err error) {
	defer recoverError(&err, true)
	return rep.Send(v)
}

// protect calls h, turning a panic into an error.
func protect(h invoker, x *exchange, in error) (err error) {
	defer recoverError(&err, true)
	_, err = h(x, in)
	return err
}

func (a *instance) unavailable(w http.ResponseWriter, r *http.Request, msg string) {
	x := a.pool.Get().(*exchange)
	a.writeJSON(x, w, r, http.StatusServiceUnavailable, a.cfg.errors.Render(httpx.ErrorBody{
		StatusCode: http.StatusServiceUnavailable, Error: http.StatusText(http.StatusServiceUnavailable), Message: msg,
	}, r))
	x.end()
	a.pool.Put(x)
	a.conns.requestEnded(r.Context())
}

// notAllowed answers 405 to a method the path has no route for.
func (a *instance) notAllowed(x *exchange, w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	a.writeJSON(x, w, r, http.StatusMethodNotAllowed, a.cfg.errors.Render(httpx.NotAllowed(r), r))
}

// writeJSON answers r outside any route (405, 503) through x, which the
// caller ends: no decorators or hooks apply. body is an error's, in the
// server's format (ErrorFormat.Render).
func (a *instance) writeJSON(x *exchange, w http.ResponseWriter, r *http.Request, status int, body any) {
	_, rep := x.Begin(w, r, nil, nil, 0, "", nil)
	rep.SetWriteTimeout(a.replyTimeout)
	rep.Code(status)
	_ = rep.Send(body)
}
