package httpx

import (
	"net/http"

	"go.uber.org/zap"
)

// Exchange is the reusable state behind one request and its reply: the
// decorator slots, the parameter buffer, the reply's encoding buffer. The
// framework keeps Exchanges in a pool; Begin hands out a Request and a
// Reply for one request and End takes them back.
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

// Params is the buffer the router fills with the parameters of the next
// request, before Begin.
func (x *Exchange) Params() *Params { return &x.state.params }

// Begin starts a request: raw, matched to route, answered through w with
// the route's send hooks. seq numbers the request for its id; id, when not
// empty, is the id the client sent; log is the route's logger.
func (x *Exchange) Begin(w http.ResponseWriter, raw *http.Request, route *RouteInfo, hooks *SendHooks,
	seq uint64, id string, log *zap.Logger) (*Request, *Reply) {
	if len(x.shells) == 0 {
		x.shells = make([]shell, shellBatch)
	}
	sh := &x.shells[0]
	x.shells = x.shells[1:]
	x.cur = sh
	x.state.reset(raw, route, seq, id, log)
	x.rep.reset(w, &sh.req, hooks, &sh.rep)
	sh.req.s, sh.rep.r = &x.state, &x.rep
	return &sh.req, &sh.rep
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
