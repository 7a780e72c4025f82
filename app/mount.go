package app

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/urlpath"
)

// anyMethod is the method of a mounted handler's routes: the router
// answers it for a method no route of the path names.
const anyMethod = httpx.AnyMethod

// Mount serves every method and every path under prefix in this context
// with h, a standard handler (http.FileServer, expvar.Handler, pprof, a
// whole other mux). The context's middleware and request hooks apply to
// it as to a route: bearer-auth registered in the context guards it. h
// sees the path with the context's prefix and prefix removed, as
// http.StripPrefix(contextPrefix+prefix, h) does, so http.FileServer
// mounted at "/static" serves "/static/app.css" from its "/app.css".
//
// prefix starts with "/" and holds no parameter or wildcard; "/" mounts
// h on the whole context. A route whose path is under prefix takes that
// path from the mount, for every method: the router matches a path
// before a method.
func (s *Server) Mount(prefix string, h http.Handler) error {
	return s.mutate("mount "+s.n.prefix+prefix, func() error {
		if h == nil {
			return errkind.New(ErrInvalidHandler, "invalid handler mounted at %q in %s: nil", prefix, s.Path())
		}
		if !strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "//") {
			return errkind.New(httpx.ErrInvalidPath, "invalid mount prefix %q in %s: it must start with / and have no empty segment", prefix, s.Path())
		}
		for seg := range strings.SplitSeq(prefix, "/") {
			if strings.HasPrefix(seg, ":") || strings.Contains(seg, "*") {
				return errkind.New(httpx.ErrInvalidPath, "invalid mount prefix %q in %s: it holds a parameter or a wildcard", prefix, s.Path())
			}
		}
		full := s.n.prefix + strings.TrimSuffix(prefix, "/")
		if full != "" {
			h = stripPrefix(full, h)
			s.n.routes = append(s.n.routes, &routeDef{method: anyMethod, path: full, handler: h})
		}
		s.n.routes = append(s.n.routes, &routeDef{method: anyMethod, path: full + "/*", handler: h})
		return nil
	})
}

// stripPrefix is http.StripPrefix(prefix, h) for a mount, removing
// prefix as the router matched it: by the decoded text of each segment.
// http.StripPrefix compares the raw path too, so a prefix the client
// wrote with escapes ("/%73tatic/a", "/v%31/files/x"), which the router
// sends to the mount, would get net/http's plain-text 404. A request
// whose path does not begin with prefix (a middleware rewrote it) gets
// that 404 still, as from http.StripPrefix.
func stripPrefix(prefix string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, escaped, ok := routingPath(r.URL)
		rest, rawRest := "", ""
		switch {
		case !ok:
		case !escaped:
			rest, ok = strings.CutPrefix(path, prefix)
		default:
			// path is the raw one, and an encoding of URL.Path: the
			// prefix takes n raw bytes and len(prefix) decoded ones.
			var n int
			if n, ok = urlpath.HasPrefix(path, prefix); ok {
				rest, rawRest = r.URL.Path[len(prefix):], path[n:]
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		r2.URL = new(url.URL)
		*r2.URL = *r.URL
		r2.URL.Path, r2.URL.RawPath = rest, rawRest
		h.ServeHTTP(w, r2)
	})
}

// stdHandler reports whether fn is a standard handler, and which.
func stdHandler(fn any) (http.Handler, bool) {
	switch h := fn.(type) {
	case http.Handler:
		return h, true
	case func(http.ResponseWriter, *http.Request):
		return http.HandlerFunc(h), true
	}
	return nil, false
}

// serveStd is the invoker of a route whose handler is a standard one. It
// writes through the reply's writer, and hands h the request as
// middleware sees it: Pattern and path values set, the request's context
// (the request time-out's, when one is set).
func (rt *route) serveStd(h http.Handler) invoker {
	return func(x *exchange, _ error) (any, error) {
		req, rep := x.Request(), x.Reply()
		r, ctx := req.Raw(), req.Context()
		switch {
		case rt.mw == nil: // not prepared by serveThrough
			r = r.WithContext(ctx)
			r.Pattern = rt.stdPattern
			for _, p := range req.Params() {
				r.SetPathValue(p.Key, p.Value)
			}
		case ctx != r.Context():
			r = r.WithContext(ctx)
		}
		// A standard handler reads the body and writes the reply itself,
		// bounded as a route's are: the body time-out from the start, the
		// reply time-out from its first write. Either is the handler's to
		// extend (http.ResponseController reaches the connection).
		w := rep.Raw()
		if r.ContentLength != 0 && rt.a.cfg.bodyTimeout > 0 {
			armBodyDeadline(w, r, rt.a.cfg.bodyTimeout) // cleared by net/http for the next request
		}
		x.BoundRawWrites()
		h.ServeHTTP(w, r)
		return nil, nil
	}
}
