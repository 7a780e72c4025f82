package app

import (
	"context"
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
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.a.endAborted(r)
	s.a.serveHTTP(w, r)
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

func (a *instance) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch state(a.state.Load()) {
	case stateReady:
	case stateDraining:
		w.Header()["Connection"] = closeHeader
	case stateClosing, stateClosed:
		w.Header()["Connection"] = closeHeader
		a.unavailable(w, r, "Server is closing")
		return
	default:
		a.unavailable(w, r, "Server is not ready")
		return
	}
	x := a.pool.Get().(*httpx.Exchange)
	ps := x.Params()
	path, escaped, ok := a.requestPath(x, w, r)
	var rt *route
	var allow string
	match := httpx.NoRoute
	switch {
	case ok && escaped:
		rt, allow, match = a.router.LookupEscaped(r.Method, path, ps)
	case ok:
		rt, allow, match = a.router.Lookup(r.Method, path, ps)
	}
	switch match {
	case httpx.Found:
	case httpx.MethodNotAllowed:
		// rt owns the path: its context's middleware answers first (a
		// CORS preflight), then the 405. A preflight naming a method the
		// path serves is answered by the middleware of that method's
		// route's context instead.
		*ps = (*ps)[:0]
		var target *route
		if r.Method == http.MethodOptions {
			if target = a.preflightTarget(r, path, escaped, ps); target != nil {
				rt = target
			}
		}
		if h := rt.node.notAllowed; h != nil {
			if !rt.serveThrough(x, w, r, h, "", allow, target) {
				a.boundDrain(w, r) // x is the middleware's next to end, still running
				return
			}
		} else {
			id, began := rt.logStart(r)
			a.notAllowed(x, w, r, allow)
			rt.logEnd(id, began, http.StatusMethodNotAllowed, x.Written())
		}
		rt = nil
	default:
		if ok {
			rt = a.findNotFound(path, escaped)
		}
	}
	switch {
	case rt == nil:
	case rt.mw != nil:
		if !rt.serveThrough(x, w, r, rt.mw, rt.stdPattern, "", rt) {
			// x is the middleware's next to end, still running; net/http
			// ends the response, and reads the body, once we return.
			a.boundDrain(w, r)
			return
		}
	default:
		rt.serve(x, w, r)
	}
	// A body the route's parser read to its end leaves nothing to read,
	// and costs no deadline. Behind middleware the parser read the copy of
	// r that carries the pattern: the body is the same.
	if d := x.DrainedBody(); d == nil || d.Body != r.Body {
		a.boundDrain(w, r)
	}
	x.End()
	a.pool.Put(x)
	a.conns.requestEnded(r.Context())
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
// lifecycle, between the two lines of the access log, then the
// onResponse hooks.
func (rt *route) serve(x *httpx.Exchange, w http.ResponseWriter, r *http.Request) {
	var began time.Duration
	logging := rt.logging()
	if logging {
		began = since()
	}
	failed := rt.lifecycle(x, w, r, rt.a.seq.Add(1), rt.a.clientID(r), logging)
	rt.onResponseHooks(x, failed)
	if logging {
		rt.logEnd(x.Request().ID(), began, x.Reply().Status(), x.Written())
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

// logIncoming writes the access log's first line.
// With trusted proxies, it adds the client's address as clientIp;
// remoteAddress stays the peer's, the proxy that sent the request.
func (rt *route) logIncoming(id string, r *http.Request) {
	if rt.a.clientIP != nil {
		rt.node.log.Info("incoming request", zap.String("reqId", id),
			zap.String("method", r.Method), zap.String("url", r.RequestURI), zap.String("remoteAddress", r.RemoteAddr),
			zap.Stringer("clientIp", rt.a.clientIP(r)))
		return
	}
	rt.node.log.Info("incoming request", zap.String("reqId", id),
		zap.String("method", r.Method), zap.String("url", r.RequestURI), zap.String("remoteAddress", r.RemoteAddr))
}

// logStart writes the access log's first line for a request whose id
// is needed before any Begin (one answered through middleware, a 405):
// it returns that id and when the request began, or "" and 0 when rt's
// requests are not logged.
func (rt *route) logStart(r *http.Request) (id string, began time.Duration) {
	if !rt.logging() {
		return "", 0
	}
	if id = rt.a.clientID(r); id == "" {
		id = reqid.Of(rt.a.seq.Add(1)) // as Request.ID makes it
	}
	rt.logIncoming(id, r)
	return id, since()
}

// logEnd writes the access log's last line, with the status and size
// the client got, for a request logStart (or lifecycle) logged at
// began; nothing when began is 0 (not logged).
func (rt *route) logEnd(id string, began time.Duration, status int, size int64) {
	if began == 0 {
		return
	}
	rt.node.log.Info("request completed", zap.String("reqId", id),
		zap.Int("statusCode", status), zap.Int64("responseSize", size),
		zap.Float64("responseTime", float64((since()-began).Microseconds())/1000))
}

// onResponseHooks runs the onResponse hooks, once the response is
// written, then the cleanups of the request values they built (failed
// when the request did), and gives back what the request borrowed from
// pools: the cells of its request values, its decoded input fields.
func (rt *route) onResponseHooks(x *httpx.Exchange, failed bool) {
	for _, h := range rt.onResponse {
		if err := protect(h, x, nil); err != nil {
			rt.node.log.Error("onResponse hook failed", zap.String("reqId", x.Request().ID()), zap.Error(err))
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

// lifecycle runs the hooks and the handler of one request on rt, numbered
// seq, with id the client's request id (or empty). With logIncoming, it
// writes the access log's first line. It reports whether the request
// failed (an error, a panic, the time-out), for the cleanups of the
// request values the onResponse hooks build.
func (rt *route) lifecycle(x *httpx.Exchange, w http.ResponseWriter, r *http.Request, seq uint64, id string, logIncoming bool) (failed bool) {
	a := rt.a
	var dw *deadlineWriter
	if d := a.cfg.requestTimeout; d > 0 {
		ctx, cancel := context.WithTimeoutCause(r.Context(), d, errDeadline)
		defer cancel()
		dw = newDeadlineWriter(w, r, ctx, a.replyTimeout, a.cfg.errors)
		w = dw
	}
	req, rep := x.Begin(w, r, &rt.info, &rt.plan, seq, id, rt.node.log)
	rep.SetWriteTimeout(a.replyTimeout)
	if logIncoming {
		rt.logIncoming(req.ID(), r)
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
	err := rt.run(x)
	expired := dw != nil && dw.expire()
	if expired {
		// The client has the time-out reply; what the handler says now is
		// discarded.
		rt.node.log.Error(errTimeout.Message, zap.String("reqId", req.ID()),
			zap.Int("statusCode", http.StatusServiceUnavailable), zap.NamedError("handlerError", err))
	} else {
		if err != nil {
			rt.failSettled(x, err)
		}
		if !rep.Sent() {
			// The handler returned without answering: send what it set
			// (status, headers) with an empty body, as net/http would.
			rt.commitOnWrite(x)
			if err := sendProtected(rep, nil); err != nil {
				rt.failSettled(x, err)
			}
		}
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
func (rt *route) watchAbort(x *httpx.Exchange, ctx context.Context) func() {
	d := x.Detached()
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
func (rt *route) watchDeadline(x *httpx.Exchange, dw *deadlineWriter) func() {
	var d *httpx.Exchange
	if len(rt.onTimeout) > 0 {
		d = x.Detached()
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
func (rt *route) runBeside(hooks []invoker, x *httpx.Exchange, kind string) {
	for _, h := range hooks {
		err := protectCall(func() error {
			_, err := h(x, nil)
			return err
		})
		if err != nil {
			rt.node.log.Error(kind+" hook failed", zap.String("reqId", x.Request().ID()), zap.Error(err))
		}
	}
}

// run runs the hooks before the handler, then the handler. A hook that
// sends a reply ends the chain.
func (rt *route) run(x *httpx.Exchange) (err error) {
	rep := x.Reply()
	defer recoverError(&err, true)
	for i := range rt.phases {
		for _, h := range rt.phases[i] {
			if _, err := h(x, nil); err != nil {
				return err
			}
			if rep.Sent() {
				return nil
			}
		}
		if rt.in == nil {
			continue
		}
		// The body is read after preParsing, validated after preValidation.
		switch phases[i] {
		case PreParsing:
			err = rt.in.decode(x)
		case PreValidation:
			err = rt.in.validate(x)
		}
		if err != nil {
			return err
		}
	}
	v, err := rt.handler(x, nil)
	if err != nil {
		return err
	}
	if (v != nil || rt.status != 0) && !rep.Sent() {
		rt.commitOnWrite(x)
		return rt.reply(rep, v)
	}
	return nil
}

// reply sends v, the handler's value, with the status its type (NoContent,
// Created) or the route (Status) declares. A send that fails before
// writing — a commit refused, an encoder, a send hook — gives the reply
// back its status from before, so that no error handler answers with the
// success status: the default one sets its own, but one of the user's
// may not.
func (rt *route) reply(rep *httpx.Reply, v any) error {
	before := rep.Status()
	var err error
	if o, ok := v.(replier); ok {
		err = o.reply(rep)
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

// commitOnWrite makes the next Send of x's reply run the cleanups of the
// request values right before it writes: after the send hooks and the
// encoding, so a reply they fail is a failed request (rolled back, and
// answered by the error path), and before the write, so a failing
// cleanup (a commit) is the error the client is answered with.
func (rt *route) commitOnWrite(x *httpx.Exchange) {
	if rt.scoped {
		x.BeforeWrite(commitValues)
	}
}

// commitValues runs the cleanups of a request whose reply is about to be
// written; it is failed when the reply's status is, or when the request
// time-out has passed: the client gets its 503 instead of the reply.
func commitValues(x *httpx.Exchange) error {
	ctx := x.Request().Context()
	late := ctx.Err() != nil && context.Cause(ctx) == errDeadline
	return cleanUp(x, late || x.Reply().Status() >= 400)
}

// failSettled answers err, once the cleanups of the request values the
// reply did not write have run, as failed: the error handlers get the
// values rolled back.
func (rt *route) failSettled(x *httpx.Exchange, err error) {
	if rt.scoped && !x.Reply().Sent() {
		err = rt.settle(x, err)
	}
	rt.fail(x, err)
}

// fail answers err: onError hooks first, then the route's error handlers,
// each falling back to its parent's when it fails, then the default.
func (rt *route) fail(x *httpx.Exchange, err error) {
	req, rep := x.Request(), x.Reply()
	log := rt.node.log
	if rep.Sent() {
		if clientGone(req.Context()) {
			// A stream whose client dropped it ends with an error (the
			// write's, the context's): the client's doing, logged at
			// debug, or every dropped stream would write an error line.
			log.Debug("error after the reply was sent", zap.String("reqId", req.ID()), zap.Error(err))
			return
		}
		log.Error("error after the reply was sent", zap.String("reqId", req.ID()), zap.Error(err))
		return
	}
	logPanic(log, req, err)
	for _, h := range rt.onError {
		if herr := protect(h, x, err); herr != nil {
			log.Error("onError hook failed", zap.String("reqId", req.ID()), zap.Error(herr))
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
			log.Error("error handler failed after sending", zap.String("reqId", req.ID()), zap.Error(herr))
			return
		}
		err = herr
		logPanic(log, req, err)
	}
	status, body := rt.a.cfg.errors.Body(err, req.Raw())
	if status >= 500 {
		if !recovered(err) { // a panic was logged, with its stack, as it came
			log.Error(err.Error(), zap.String("reqId", req.ID()), zap.Int("statusCode", status), zap.Error(err))
		}
	} else if log.Core().Enabled(zap.DebugLevel) {
		// A refusal is the client's doing, so it is logged at debug: at
		// info, a flood of bad requests would write a line each, which
		// costs the server more than the refusal itself. Checked first,
		// so that building the message and the fields costs nothing when
		// debug is off.
		log.Debug(err.Error(), zap.String("reqId", req.ID()), zap.Int("statusCode", status))
	}
	rep.Code(status)
	if serr := sendProtected(rep, body); serr != nil {
		// A send hook failed on the error body itself: answer without hooks.
		log.Error("cannot send the error response through the send hooks", zap.String("reqId", req.ID()), zap.Error(serr))
		x.SkipSendHooks()
		if serr = sendProtected(rep, body); serr != nil {
			log.Error("cannot send error response", zap.String("reqId", req.ID()), zap.Error(serr))
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
func protect(h invoker, x *httpx.Exchange, in error) (err error) {
	defer recoverError(&err, true)
	_, err = h(x, in)
	return err
}

func (a *instance) unavailable(w http.ResponseWriter, r *http.Request, msg string) {
	x := a.pool.Get().(*httpx.Exchange)
	a.writeJSON(x, w, r, http.StatusServiceUnavailable, a.cfg.errors.Render(httpx.ErrorBody{
		StatusCode: http.StatusServiceUnavailable, Error: http.StatusText(http.StatusServiceUnavailable), Message: msg,
	}, r))
	x.End()
	a.pool.Put(x)
	a.conns.requestEnded(r.Context())
}

// notAllowed answers 405 to a method the path has no route for.
func (a *instance) notAllowed(x *httpx.Exchange, w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	a.writeJSON(x, w, r, http.StatusMethodNotAllowed, a.cfg.errors.Render(httpx.NotAllowed(r), r))
}

// writeJSON answers r outside any route (405, 503) through x, which the
// caller ends: no decorators or hooks apply. body is an error's, in the
// server's format (ErrorFormat.Render).
func (a *instance) writeJSON(x *httpx.Exchange, w http.ResponseWriter, r *http.Request, status int, body any) {
	_, rep := x.Begin(w, r, nil, nil, 0, "", nil)
	rep.SetWriteTimeout(a.replyTimeout)
	rep.Code(status)
	_ = rep.Send(body)
}
