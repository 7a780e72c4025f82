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
