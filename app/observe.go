package app

import (
	"net/http"
	"time"

	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/httpx"
)

// Observer hears of the requests a context serves: those of its routes
// and of its descendants' routes, its not-found handler's (and those of
// its descendants'), and the 405 answers for the paths it owns. It is
// what metrics and tracing plugins build on: each call gets the route's
// pattern and context, which a middleware cannot see.
//
// Start runs once the request is routed, before any middleware; End once
// the client has its response (or the connection failed), after the
// onResponse hooks and the access log, on the goroutine that ended the
// request. Both run on the request's goroutine and delay it: do no I/O
// there. Either may be nil. A panic in them is not recovered.
type Observer struct {
	Start func(Observation)
	End   func(Observation)
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
	return s.mutate(func() error {
		if o.Start == nil && o.End == nil {
			return nil
		}
		s.n.observers = append(s.n.observers, o)
		return nil
	})
}

// compileObservers gives rt the observers of line, root first, and the
// pattern they report.
func (rt *route) compileObservers(line []*node) {
	for _, n := range line {
		rt.observers = append(rt.observers, n.observers...)
	}
	if rt.info.Method != "" {
		rt.observedRoute = routepath.Braced(rt.info.Pattern, "*...")
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

// observeStart tells rt's observers r is served; a 405 when allow is
// set.
func (rt *route) observeStart(r *http.Request, allow string) {
	o := rt.observation(r, allow)
	for _, ob := range rt.observers {
		if ob.Start != nil {
			ob.Start(o)
		}
	}
}

// observeEnd tells rt's observers r got status and size, began after
// the server's epoch; x's request, when one began, is the one reported.
func (rt *route) observeEnd(x *httpx.Exchange, r *http.Request, allow string, began time.Duration, status int, size int64) {
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
