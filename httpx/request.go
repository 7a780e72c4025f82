package httpx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/clientip"
	"github.com/burrow-go/burrow/internal/compiled"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/reqid"
	"github.com/burrow-go/burrow/slogzap"
)

// RouteInfo is what a request knows of the route it matched: its method
// and path, and its context path. The app package builds one per route
// at start-up; it is read-only after.
type RouteInfo struct {
	Method  string
	Path    string // Burrow's syntax, prefix included: "/todos/:id", as app.RouteInfo's
	Context string // the route's context path, "root > api"

	// Pattern is Path.
	//
	// Deprecated: use Path, the name app.RouteInfo and app.RouteSpec
	// give the same value.
	Pattern string
}

// routePlan is the compiled part of a route a request and its reply run
// with: the decorators it can see and its send hooks.
type routePlan = compiled.Route[Request, Reply]

// Request is one incoming request as a handler and its hooks see it. It
// is only valid until the handler and the hooks of the request have
// returned: its buffers then serve the next request, and the Request
// itself panics ("httpx.Request used after its handler returned") on
// every method. Keep what a goroutine needs — the ID, header values, the
// decoded input, the context, the logger — not the *Request.
type Request struct {
	s *requestState // nil once the request has ended
}

// requestState is what a Request reads; it lives in an Exchange and is
// reused for the next request.
type requestState struct {
	raw    *http.Request
	params Params
	route  *RouteInfo
	plan   *routePlan // nil for a request with no decorators
	values []any

	seq      uint64
	id       string
	baseLog  *zap.Logger
	log      *zap.Logger
	query    url.Values
	queryErr error
	hasQuery bool
	ctx      context.Context
	body     io.Reader
	input    [4]any
	drained  *http.Request // the request whose raw body a parser read to its end

	// clientIP finds the client's address behind the server's trusted
	// proxies (SetClientIP); kept from one request to the next.
	clientIP func(*http.Request) netip.Addr
}

// errRequestEnded is what a Request panics with once its request is over.
var errRequestEnded = errors.New("httpx.Request used after its handler returned; " +
	"keep the values a goroutine needs (ID, headers, decoded input, context, logger), not the *httpx.Request")

// live is the request's state, or a panic naming the mistake when the
// request is over: reading on would give another request's data.
func (r *Request) live() *requestState {
	if r.s == nil {
		panic(errRequestEnded)
	}
	return r.s
}

// reset prepares s for a new request.
func (s *requestState) reset(raw *http.Request, route *RouteInfo, plan *routePlan, seq uint64, id string, log *zap.Logger) {
	s.raw, s.route, s.plan, s.seq, s.id, s.baseLog = raw, route, plan, seq, id, log
	s.log, s.query, s.queryErr, s.hasQuery, s.ctx, s.body = nil, nil, nil, false, nil, nil
	s.input = [4]any{}
	if plan == nil {
		return
	}
	if n := len(plan.Types); cap(s.values) < n {
		s.values = make([]any, n)
	} else {
		s.values = s.values[:n]
	}
	for _, sv := range plan.Initial {
		s.values[sv.Index] = sv.Value
	}
}

// clear drops every reference s holds, so a pooled state keeps nothing
// alive.
func (s *requestState) clear() {
	clear(s.values)
	clear(s.params)
	s.params = s.params[:0]
	s.raw, s.route, s.plan, s.baseLog, s.log, s.query, s.queryErr, s.id, s.ctx, s.body = nil, nil, nil, nil, nil, nil, nil, "", nil, nil
	s.drained = nil
	s.input = [4]any{}
}

// Detached returns a copy of r for code that runs beside the handler, on
// another goroutine (onTimeout and onRequestAbort hooks). Its ID is fixed
// now and its parameters copied; it shares nothing the handler may
// change: it has no decorators and no decoded input, and what is set on
// it stays on it. Its buffers are its own, so it stays readable after the
// request ends.
func (r *Request) Detached() *Request {
	d := &struct {
		r Request
		s requestState
	}{}
	d.s = r.detached()
	d.r.s = &d.s
	return &d.r
}

// detached is the state of a Detached copy of r.
func (r *Request) detached() requestState {
	s := r.live()
	return requestState{
		raw: s.raw, route: s.route, seq: s.seq, id: r.ID(), baseLog: s.baseLog, ctx: s.ctx, clientIP: s.clientIP,
		params: append(Params(nil), s.params...),
		body:   http.NoBody, // the handler's to read
	}
}

// BodyReader is the stream the body parser will read: the raw body,
// unless a preParsing hook replaced it with SetBodyReader.
func (r *Request) BodyReader() io.Reader {
	s := r.live()
	if s.body != nil {
		return s.body
	}
	return s.raw.Body
}

// SetBodyReader replaces the stream the body parser reads; a preParsing
// hook uses it to decompress or decrypt. The body limit applies to what
// the parser reads from it.
func (r *Request) SetBodyReader(body io.Reader) { r.live().body = body }

// Body is the decoded body (a pointer to the type the route asked for), or
// nil when the route asked for none or it is not parsed yet. The value it
// points to is the request's own and may be kept.
func (r *Request) Body() any { return r.live().input[0] }

// Raw is the underlying *http.Request.
func (r *Request) Raw() *http.Request { return r.live().raw }

// Context is the request's context, cancelled when the client goes away,
// the request time-out expires, or the request ends.
func (r *Request) Context() context.Context {
	s := r.live()
	if s.ctx != nil {
		return s.ctx
	}
	return s.raw.Context()
}

// SetContext replaces the request's context (the framework uses it for the
// request time-out) without copying the *http.Request.
func (r *Request) SetContext(ctx context.Context) { r.live().ctx = ctx }

// isHead reports whether r is a HEAD request; false when the reply was
// begun without one.
func (r *Request) isHead() bool {
	return r != nil && r.s != nil && r.s.raw != nil && r.s.raw.Method == http.MethodHead
}

// Method is the request method.
func (r *Request) Method() string { return r.live().raw.Method }

// URL is the parsed request URL.
func (r *Request) URL() *url.URL { return r.live().raw.URL }

// Header returns the first value of the request header key.
func (r *Request) Header(key string) string { return r.live().raw.Header.Get(key) }

// Headers are all the request headers.
func (r *Request) Headers() http.Header { return r.live().raw.Header }

// Param returns the path parameter called name, or "".
func (r *Request) Param(name string) string { return r.live().params.Get(name) }

// Params are the path parameters, in pattern order. The slice is reused
// by the next request: copy it to keep it (the strings may be kept).
func (r *Request) Params() Params { return r.live().params }

// Query returns the first value of the query parameter key, or "".
func (r *Request) Query(key string) string { return r.QueryValues().Get(key) }

// QueryValues are all query parameters, parsed on first use. Malformed
// pairs (a bad escape, a semicolon used as a separator) are skipped, as
// net/http does; QueryErr says whether there were any.
func (r *Request) QueryValues() url.Values {
	s := r.live()
	if !s.hasQuery {
		s.query, s.queryErr = url.ParseQuery(s.raw.URL.RawQuery)
		s.hasQuery = true
	}
	return s.query
}

// QueryErr is net/url's complaint about the query, if it had one: the
// first malformed pair that QueryValues skipped. Typed query input
// (app.Query) refuses such a query with 400; a handler reading the query
// through QueryValues decides for itself.
func (r *Request) QueryErr() error {
	r.QueryValues()
	return r.s.queryErr
}

// ID is the request id: the configured request-id header's value when the
// client sent one, else "req-" and a per-server counter in base 36.
func (r *Request) ID() string {
	s := r.live()
	if s.id == "" {
		s.id = reqid.Of(s.seq)
	}
	return s.id
}

// Log is the request's logger: the route's context logger with the request
// id attached.
func (r *Request) Log() *zap.Logger {
	s := r.live()
	if s.log == nil {
		if s.baseLog == nil {
			return zap.NewNop()
		}
		// Lazily: a logger taken only to check a level (a refusal logged
		// at debug) must not pay for cloning the encoder on every request.
		s.log = s.baseLog.WithLazy(zap.String("reqId", r.ID()))
	}
	return s.log
}

// ClientIP is the address of the client: the peer's (RemoteAddr), or,
// when the peer is one of the server's trusted proxies
// (app.WithTrustedProxies), the right-most address of the forwarding
// header that no trusted proxy holds. A header sent by a peer that is not
// trusted is ignored, so a client cannot choose its address. It is the
// zero netip.Addr when the peer is not an IP address (a Unix socket). It
// is found on each call, from the headers, without allocating: a request
// that never asks pays nothing.
func (r *Request) ClientIP() netip.Addr {
	s := r.live()
	if s.clientIP == nil {
		return clientip.Peer(s.raw.RemoteAddr)
	}
	return s.clientIP(s.raw)
}

// Slog is Log as a *slog.Logger, for libraries that take one: it writes
// to the same core, with the request id and the context's fields.
func (r *Request) Slog() *slog.Logger { return slog.New(slogzap.NewHandler(r.Log().Core())) }

// Route describes the matched route; nil for a request no route matched.
func (r *Request) Route() *RouteInfo { return r.live().route }

// Decorator returns the current value of the request decorator called
// name, and whether the route can see it. A Detached request has none.
func (r *Request) Decorator(name string) (any, bool) {
	s := r.live()
	i, ok := s.slot(name)
	if !ok {
		return nil, false
	}
	return s.values[i], true
}

// slot is the slot of the request decorator called name, if the route
// can see it.
func (s *requestState) slot(name string) (int, bool) {
	if s.plan == nil {
		return 0, false
	}
	i, ok := s.plan.Slots[name]
	return i, ok && i < len(s.values)
}

// SetDecorator replaces the value of the request decorator called name for
// this request only. The value must have the decorator's declared type.
func (r *Request) SetDecorator(name string, v any) error {
	s := r.live()
	if s.route == nil {
		return errkind.New(ErrUnknownDecorator, "request decorator %q is not visible here", name)
	}
	i, ok := s.slot(name)
	if !ok {
		return errkind.New(ErrUnknownDecorator, "request decorator %q is not visible from route %s %s", name, s.route.Method, s.route.Path)
	}
	if want := s.plan.Types[i]; reflect.TypeOf(v) != want && (v != nil || !nillable(want)) {
		return errkind.New(ErrDecoratorType, "request decorator %q holds %v, not %T", name, want, v)
	}
	s.values[i] = v
	return nil
}

func nillable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return true
	}
	return false
}
