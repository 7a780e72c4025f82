package httpx

import (
	"net/http"
	"net/netip"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/clientip"
	"github.com/burrow-go/burrow/internal/compiled"
)

// Exchange is the reusable state behind one request and its reply: the
// decorator slots, the parameter buffer, the reply's encoding buffer. The
// framework keeps Exchanges in a pool; Begin hands out a Request and a
// Reply for one request and End takes them back.
//
// Exchange is the framework's side of a request: every operation that
// drives the pool or reads the request's plumbing (decorator slots by
// index, the decoded input) is here, on the one type handlers never
// receive, so a handler or a hook cannot reset, clear or rewire the
// request it is serving.
//
// The buffers are reused; the Request and Reply are not. A handler that
// keeps either past its request (in a goroutine, a cache) gets a panic
// naming the mistake on its next call, instead of the next request's
// data or a write into another client's response. New Request and Reply
// values are allocated a batch at a time, so this costs one allocation
// every shellBatch requests, not one per request.
type Exchange struct {
	state  requestState
	rep    reply
	shells []shell // fresh pairs, never used before
	cur    *shell  // the pair of the request being served
	own    shell   // a Detach-ed exchange's pair
}

// shell is the Request and Reply of one request: two pointers, which
// the request's end sets to nil.
type shell struct {
	req Request
	rep Reply
}

// shellBatch is how many Request/Reply pairs are allocated at once: the
// allocation is shared by that many requests.
const shellBatch = 64

// SetErrorFormat sets how the exchange's replies write errors
// (Reply.SendError). The framework calls it once, when it makes the
// exchange; it survives the requests the exchange serves.
func (x *Exchange) SetErrorFormat(f ErrorFormat) { x.rep.format = f }

// ErrorFormat is how the exchange's replies write errors, for an answer
// written outside a reply (a middleware's, app.WriteError).
func (x *Exchange) ErrorFormat() ErrorFormat { return x.rep.format }

// Params is the buffer the router fills with the parameters of the next
// request, before Begin.
func (x *Exchange) Params() *Params { return &x.state.params }

// Begin starts a request: raw, matched to route, answered through w, run
// with plan's decorators and send hooks (the part of the route the app
// package compiles at start-up; its type is internal to Burrow). route and plan may be nil (an
// answer outside any route: no decorators, no hooks). seq numbers the
// request for its id; id, when not empty, is the id the client sent; log
// is the route's logger.
func (x *Exchange) Begin(w http.ResponseWriter, raw *http.Request, route *RouteInfo, plan *compiled.Route[Request, Reply],
	seq uint64, id string, log *zap.Logger) (*Request, *Reply) {
	if len(x.shells) == 0 {
		x.shells = make([]shell, shellBatch)
	}
	sh := &x.shells[0]
	x.shells = x.shells[1:]
	x.cur = sh
	x.state.reset(raw, route, plan, seq, id, log)
	x.rep.reset(w, &sh.req, plan, &sh.rep)
	sh.req.s, sh.rep.r = &x.state, &x.rep
	return &sh.req, &sh.rep
}

// SetClientIP gives the exchange's requests the function that finds a
// request's client address (Request.ClientIP); nil reads the peer's.
func (x *Exchange) SetClientIP(fn func(*http.Request) netip.Addr) { x.state.clientIP = fn }

// ClientIP is the client address of raw, a request the exchange serves
// (or the copy of it a middleware passed on), as Request.ClientIP finds
// it.
func (x *Exchange) ClientIP(raw *http.Request) netip.Addr {
	if x.state.clientIP == nil {
		return clientip.Peer(raw.RemoteAddr)
	}
	return x.state.clientIP(raw)
}

// Request is the Request of the request being served (or of a Detach-ed
// exchange); nil before Begin and after End.
func (x *Exchange) Request() *Request {
	if x.cur == nil {
		return nil
	}
	return &x.cur.req
}

// Reply is the Reply of the request being served; nil before Begin, after
// End, and for a Detach-ed exchange, which cannot answer.
func (x *Exchange) Reply() *Reply {
	if x.cur == nil || x.cur.rep.r == nil {
		return nil
	}
	return &x.cur.rep
}

// Slot is the current value of request decorator slot i; i must be
// visible from the route. Compiled handler plans read decorators by slot,
// without the name lookup of Request.Decorator.
func (x *Exchange) Slot(i int) any { return x.state.values[i] }

// SetSlot sets request decorator slot i to v for the rest of the request
// (the framework's request values, which it builds on first use); i must
// be visible from the route.
func (x *Exchange) SetSlot(i int, v any) { x.state.values[i] = v }

// Input is the decoded body, query, params and input-struct fields of
// the request (in that order), which the framework fills and the hooks and the handler share.
func (x *Exchange) Input() *[4]any { return &x.state.input }

// Drained records that the body a parser just read to io.EOF was the raw
// request's own (not a reader a preParsing hook set), so net/http has
// nothing left to read after the handler. DrainedBody says which request
// that was.
func (x *Exchange) Drained() {
	if x.state.body == nil {
		x.state.drained = x.state.raw
	}
}

// DrainedBody is the request recorded by Drained, or nil.
func (x *Exchange) DrainedBody() *http.Request { return x.state.drained }

// Written is the number of body bytes written to the reply so far,
// through Send or Raw, for the access log.
func (x *Exchange) Written() int64 { return x.rep.tw.Size }

// Answered records that the client's response was written underneath the
// reply, with status (the request time-out's 503): the reply reports it
// and writes nothing more.
func (x *Exchange) Answered(status int) {
	x.rep.tw.Record(status)
}

// BeforeWrite arms f to run once, right before the reply's next Send
// writes: after its send hooks and its encoding succeeded, so that what
// f does (commit the request's work) happens only for a reply that is
// about to leave. When f fails, nothing is written and Send returns its
// error; a Send that fails before f is reached leaves it unarmed. f gets
// x, so that one function serves every request without a closure.
func (x *Exchange) BeforeWrite(f func(*Exchange) error) { x.rep.beforeWrite, x.rep.x = f, x }

// BoundRawWrites makes the reply's write time-out (SetWriteTimeout) bound
// writes through Raw too, from the first one, as it bounds Send: for a
// standard http.Handler, which only has Raw. A handler that sets a write
// deadline of its own first (http.ResponseController) keeps it.
func (x *Exchange) BoundRawWrites() { x.rep.rawArms = true }

// SkipSendHooks makes the reply send without its route's send hooks: the
// framework's last resort when a hook fails on the error body itself.
func (x *Exchange) SkipSendHooks() { x.rep.hooks = nil }

// Detach makes d, a new Exchange, one for hooks that run beside the
// handler, on another goroutine: its Request is a Detached copy of x's,
// and it has no Reply, no decorators and no decoded input. It stays
// usable after x's request ends. d is the caller's, so that the framework
// can keep state of its own beside it without a second allocation.
func (x *Exchange) Detach(d *Exchange) {
	d.state = x.Request().detached()
	d.own.req.s = &d.state
	d.cur = &d.own
}

// End ends the request Begin started, if any: its Request and Reply panic
// from now on, and the buffers are cleared for the next request.
func (x *Exchange) End() {
	if sh := x.cur; sh != nil {
		sh.req.s, sh.rep.r = nil, nil
		x.cur = nil
	}
	x.state.clear()
	x.rep.clear()
}
