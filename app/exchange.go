package app

import "github.com/burrow-go/burrow/httpx"

// exchange is the framework's side of one request: httpx's Exchange (the
// Request, the Reply and their buffers) and what only this package keeps
// per request, the bookkeeping of the request values built for it. The
// server pools exchanges; the slices grow on the first request that
// builds a value and are reused after, so a request that builds none
// touches neither.
type exchange struct {
	httpx.Exchange
	built    []bool                    // by slot: built in this request
	cleanups []func(failed bool) error // of the values built, in order

	// commit is commitValues for this exchange, made once with it, so
	// that arming it for a request (BeforeWrite) costs no closure.
	commit func(*httpx.Exchange) error
}

func newExchange() *exchange {
	x := new(exchange)
	x.commit = func(*httpx.Exchange) error { return commitValues(x) }
	return x
}

// isBuilt reports whether the request value in slot i has been built in
// this request.
func (x *exchange) isBuilt(i int) bool { return i < len(x.built) && x.built[i] }

// keep stores v, the request value just built for slot i, for the rest of
// the request, and cleanup, if not nil, for popCleanup.
func (x *exchange) keep(i int, v any, cleanup func(failed bool) error) {
	if i >= len(x.built) {
		x.built = append(x.built, make([]bool, i+1-len(x.built))...)
	}
	x.built[i] = true
	x.SetSlot(i, v)
	if cleanup != nil {
		x.cleanups = append(x.cleanups, cleanup)
	}
}

// popCleanup removes and returns the cleanup of the request value built
// last whose cleanup has not been taken yet, or nil when none is left:
// cleanups run in the reverse order of their values' construction, as
// deferred calls do.
func (x *exchange) popCleanup() func(failed bool) error {
	c := x.cleanups
	if len(c) == 0 {
		return nil
	}
	f := c[len(c)-1]
	c[len(c)-1] = nil
	x.cleanups = c[:len(c)-1]
	return f
}

// detached is an exchange for hooks that run beside the handler, on
// another goroutine (httpx.Exchange.Detach): it builds no request values.
func (x *exchange) detached() *exchange {
	d := new(exchange)
	x.Detach(&d.Exchange)
	return d
}

// end ends the request, as httpx.Exchange.End, and forgets its values.
func (x *exchange) end() {
	x.End()
	clear(x.built)
	clear(x.cleanups)
	x.cleanups = x.cleanups[:0]
}
