package httpx

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"

	"go.uber.org/zap"
)

// RouteInfo is what a request knows of the route it matched: its method
// and pattern, its context path, and the request decorators it can see.
// The app package builds one per route at start-up; it is read-only after.
type RouteInfo struct {
	Method  string
	Pattern string
	Context string

	// Slots maps each visible request decorator's name to its slot.
	Slots map[string]int
	// Types holds the declared type of every slot in the tree, by index.
	Types []reflect.Type
	// Initial is the value each visible decorator starts every request
	// with.
	Initial []SlotValue
}

// SlotValue is the starting value of one request decorator slot.
type SlotValue struct {
	Index int
	Value any
}

// Request is one incoming request as a handler and its hooks see it. It is
// only valid until the handler and the hooks of the request have returned:
// the framework reuses it for the next request.
type Request struct {
	raw    *http.Request
	params Params
	route  *RouteInfo
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
	input    [3]any
}

// Reset prepares r for a new request. seq numbers the request for its id;
// values must be large enough for every slot in the tree.
func (r *Request) Reset(raw *http.Request, route *RouteInfo, seq uint64, id string, log *zap.Logger) {
	r.raw, r.route, r.seq, r.id, r.baseLog = raw, route, seq, id, log
	r.log, r.query, r.queryErr, r.hasQuery, r.ctx, r.body = nil, nil, nil, false, nil, nil
	r.input = [3]any{}
	if route != nil {
		for _, sv := range route.Initial {
			r.values[sv.Index] = sv.Value
		}
	}
}

// Clear drops every reference r holds, so a pooled Request keeps nothing
// alive.
func (r *Request) Clear() {
	clear(r.values)
	clear(r.params)
	r.params = r.params[:0]
	r.raw, r.route, r.baseLog, r.log, r.query, r.queryErr, r.id, r.ctx, r.body = nil, nil, nil, nil, nil, nil, "", nil, nil
	r.input = [3]any{}
}

// BodyReader is the stream the body parser will read: the raw body,
// unless a preParsing hook replaced it with SetBodyReader.
func (r *Request) BodyReader() io.Reader {
	if r.body != nil {
		return r.body
	}
	return r.raw.Body
}

// SetBodyReader replaces the stream the body parser reads; a preParsing
// hook uses it to decompress or decrypt. The body limit applies to what
// the parser reads from it.
func (r *Request) SetBodyReader(body io.Reader) { r.body = body }

// Body is the decoded body (a pointer to the type the route asked for), or
// nil when the route asked for none or it is not parsed yet.
func (r *Request) Body() any { return r.input[0] }

// Input gives the framework the decoded body, query and params of the
// request (in that order), shared by the hooks and the handler.
func (r *Request) Input() *[3]any { return &r.input }

// EnsureSlots makes room for n decorator slots.
func (r *Request) EnsureSlots(n int) {
	if cap(r.values) < n {
		r.values = make([]any, n)
	}
	r.values = r.values[:n]
}

// ParamsBuf gives the router the request's parameter buffer to fill.
func (r *Request) ParamsBuf() *Params { return &r.params }

// Raw is the underlying *http.Request.
func (r *Request) Raw() *http.Request { return r.raw }

// Context is the request's context, cancelled when the client goes away or
// the server shuts down.
func (r *Request) Context() context.Context {
	if r.ctx != nil {
		return r.ctx
	}
	return r.raw.Context()
}

// SetContext replaces the request's context (the framework uses it for the
// request time-out) without copying the *http.Request.
func (r *Request) SetContext(ctx context.Context) { r.ctx = ctx }

// Method is the request method.
func (r *Request) Method() string { return r.raw.Method }

// URL is the parsed request URL.
func (r *Request) URL() *url.URL { return r.raw.URL }

// Header returns the first value of the request header key.
func (r *Request) Header(key string) string { return r.raw.Header.Get(key) }

// Headers are all the request headers.
func (r *Request) Headers() http.Header { return r.raw.Header }

// Param returns the path parameter called name, or "".
func (r *Request) Param(name string) string { return r.params.Get(name) }

// Params are the path parameters, in pattern order.
func (r *Request) Params() Params { return r.params }

// Query returns the first value of the query parameter key, or "".
func (r *Request) Query(key string) string { return r.QueryValues().Get(key) }

// QueryValues are all query parameters, parsed on first use. Malformed
// pairs (a bad escape, a semicolon used as a separator) are skipped, as
// net/http does; QueryErr says whether there were any.
func (r *Request) QueryValues() url.Values {
	if !r.hasQuery {
		r.query, r.queryErr = url.ParseQuery(r.raw.URL.RawQuery)
		r.hasQuery = true
	}
	return r.query
}

// QueryErr is net/url's complaint about the query, if it had one: the
// first malformed pair that QueryValues skipped. Typed query input
// (app.Query) refuses such a query with 400; a handler reading the query
// through QueryValues decides for itself.
func (r *Request) QueryErr() error {
	r.QueryValues()
	return r.queryErr
}

// ID is the request id: the configured request-id header's value when the
// client sent one, else "req-" and a per-server counter in base 36.
func (r *Request) ID() string {
	if r.id == "" {
		r.id = "req-" + strconv.FormatUint(r.seq, 36)
	}
	return r.id
}

// Log is the request's logger: the route's context logger with the request
// id attached.
func (r *Request) Log() *zap.Logger {
	if r.log == nil {
		if r.baseLog == nil {
			return zap.NewNop()
		}
		r.log = r.baseLog.With(zap.String("reqId", r.ID()))
	}
	return r.log
}

// Route describes the matched route; nil for a request no route matched.
func (r *Request) Route() *RouteInfo { return r.route }

// Slot returns the current value of request decorator slot i. It is what
// compiled handler plans use; i must be visible from the route.
func (r *Request) Slot(i int) any { return r.values[i] }

// Decorator returns the current value of the request decorator called
// name, and whether the route can see it.
func (r *Request) Decorator(name string) (any, bool) {
	if r.route == nil {
		return nil, false
	}
	i, ok := r.route.Slots[name]
	if !ok {
		return nil, false
	}
	return r.values[i], true
}

// SetDecorator replaces the value of the request decorator called name for
// this request only. The value must have the decorator's declared type.
func (r *Request) SetDecorator(name string, v any) error {
	if r.route == nil {
		return fmt.Errorf("%w: %q", ErrUnknownDecorator, name)
	}
	i, ok := r.route.Slots[name]
	if !ok {
		return fmt.Errorf("%w: %q from %s %s", ErrUnknownDecorator, name, r.route.Method, r.route.Pattern)
	}
	if want := r.route.Types[i]; reflect.TypeOf(v) != want && (v != nil || !nillable(want)) {
		return fmt.Errorf("%w: %q holds %v, got %T", ErrDecoratorType, name, want, v)
	}
	r.values[i] = v
	return nil
}

func nillable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return true
	}
	return false
}
