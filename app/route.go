package app

import (
	"net/http"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	httpmethod "github.com/burrow-go/burrow/internal/method"
)

// routeDef is a route as registered, before Ready compiles it.
type routeDef struct {
	method    string
	path      string // full path, prefix included
	alias     string // a prefixed plugin's "/" route: the prefix with a slash, served too
	handler   any
	hooks     []hookDef
	bodyLimit int64
	multipart MultipartLimits // WithMultipartLimits's
	status    int             // Status: a typed route's success status
	err       error           // from options, reported by Route
	meta      *routeMeta      // what the route says about itself (routeoptions.go)
	config    *routeConfig    // WithConfig's values; nil for none
	caching   *caching        // ETag, CacheControl, RequireIfMatch; nil for none
}

// Route registers handler for method and path in this context. path must
// start with "/" — with or without a prefix, so a plugin's routes do not
// depend on how it is registered — and may hold ":name" parameters and
// end with a "*" wildcard; the context's prefix is prepended. Under a
// prefix, the route "/" answers both "/v1" and "/v1/". A GET route also
// answers HEAD (same headers, no body) unless a HEAD route is registered
// for the same path.
//
// A handler is written as a typed route ([Get], [Post], … [Handle]).
// Route (and s.Get, s.Post, …) is the flexible form, for what is not one:
// a hook-like handler (func(*httpx.Request, *httpx.Reply) error), a stream
// or a standard http.Handler. handler is a function whose parameters
// Burrow fills: *httpx.Request, *httpx.Reply, context.Context,
// *zap.Logger, In structs (request decorators and services), and services
// by type. It returns nothing, error, or (T, error), where a T is sent
// when the handler did not send anything itself. Parameters are resolved
// at Ready, which fails if one is not visible from this context. A
// function whose only parameters are *httpx.Request and *httpx.Reply is
// called directly; any other through reflect.Value.Call (about 400 ns
// and two allocations a call), which a typed route avoids.
func (s *Server) Route(method, path string, handler any, opts ...RouteOption) error {
	return s.mutate("route "+method+" "+s.n.prefix+path, func() error {
		if !httpmethod.Valid(method) {
			return errkind.New(httpx.ErrInvalidMethod, "invalid method %q in %s: a method is an upper-case token", method, s.Path())
		}
		if !strings.HasPrefix(path, "/") {
			return errkind.New(httpx.ErrInvalidPath, "invalid path %q in %s: it must start with /", path, s.Path())
		}
		r := &routeDef{method: method, path: s.n.prefix + path, handler: handler}
		for _, o := range opts {
			o(r)
		}
		if _, typed := handler.(typedHandler); r.status != 0 && !typed && r.err == nil {
			r.err = errkind.New(ErrInvalidHandler, "takes Status, which only a typed route (app.Get, app.Post, … app.Handle) applies")
		}
		if r.err != nil {
			return &RouteError{Method: method, Path: r.path, Context: s.Path(), Err: r.err}
		}
		if s.n.prefix != "" && path == "/" {
			// "/v1" and "/v1/" both reach a prefixed plugin's "/" route:
			// one route, served at two paths.
			r.path, r.alias = s.n.prefix, r.path
		}
		s.n.routes = append(s.n.routes, r)
		return nil
	})
}

// Get registers a GET (and HEAD) route.
func (s *Server) Get(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodGet, path, handler, opts...)
}

// Head registers a HEAD route.
func (s *Server) Head(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodHead, path, handler, opts...)
}

// Post registers a POST route.
func (s *Server) Post(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodPost, path, handler, opts...)
}

// Put registers a PUT route.
func (s *Server) Put(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodPut, path, handler, opts...)
}

// Patch registers a PATCH route.
func (s *Server) Patch(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodPatch, path, handler, opts...)
}

// Delete registers a DELETE route.
func (s *Server) Delete(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodDelete, path, handler, opts...)
}

// Options registers an OPTIONS route.
func (s *Server) Options(path string, handler any, opts ...RouteOption) error {
	return s.Route(http.MethodOptions, path, handler, opts...)
}
