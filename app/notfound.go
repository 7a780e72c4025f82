package app

import (
	"net/http"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/urlpath"
)

// SetNotFoundHandler sets the handler for unknown paths under this
// context's prefix. Only the root and contexts registered with a Prefix may
// set one, and at most one per prefix: when two contexts registered with the
// same prefix each set one, Ready fails with ErrHandlerSet. It runs the
// context's middleware and hooks. A known path with another method is
// answered 405, after the middleware of the context owning the path and
// before any handler or hook, whatever is set here.
func (s *Server) SetNotFoundHandler(fn any) error {
	return s.mutate(func() error {
		if fn == nil {
			return errkind.New(ErrInvalidHandler, "invalid not-found handler in %s: nil", s.Path())
		}
		if parent := s.a.parent(s.n); parent != nil && (s.n.prefix == "" || s.n.prefix == parent.prefix) {
			return errkind.New(ErrInvalidHandler, "invalid not-found handler in %s: the context has no prefix of its own, so it would shadow its parent's; register the plugin with app.Prefix",
				s.Path())
		}
		if s.n.notFound != nil {
			return errkind.New(ErrHandlerSet, "the not-found handler of %s is already set", s.Path())
		}
		s.n.notFound = &handlerDef{fn: fn}
		return nil
	})
}

// notFoundRoute answers unknown paths under prefix.
type notFoundRoute struct {
	prefix string
	rt     *route
}

// compileNotFound compiles the not-found route of every context that has
// one. Two contexts registered with the same prefix may each have set a
// handler; the second is refused, as it would answer for the first.
func (a *instance) compileNotFound() error {
	var errs error
	owner := map[string]*node{}
	a.walk(func(n *node) {
		if errs != nil || (n.notFound == nil && n != a.root) {
			return
		}
		if prev := owner[n.prefix]; prev != nil {
			errs = errkind.New(ErrHandlerSet, "the not-found handler of %s for %s is already set in %s",
				n.ctx.Path(), n.prefix, prev.ctx.Path())
			return
		}
		owner[n.prefix] = n
		handler := any(a.defaultNotFound)
		if n.notFound != nil {
			handler = n.notFound.fn
		}
		rt, err := a.compileRoute(n, "*", n.prefix+"/*", handler, nil, 0, MultipartLimits{})
		if err != nil {
			errs = err
			return
		}
		rt.info.Method, rt.info.Pattern, rt.stdPattern = "", "", ""
		a.notFound = append(a.notFound, &notFoundRoute{prefix: n.prefix, rt: rt})
	})
	// Longest prefix first, so /api/x finds /api's handler before root's.
	for i := 1; i < len(a.notFound); i++ {
		for j := i; j > 0 && len(a.notFound[j].prefix) > len(a.notFound[j-1].prefix); j-- {
			a.notFound[j], a.notFound[j-1] = a.notFound[j-1], a.notFound[j]
		}
	}
	return errs
}

// defaultNotFound answers 404 in the server's error format.
func (a *instance) defaultNotFound(req *httpx.Request, rep *httpx.Reply) error {
	return rep.Code(http.StatusNotFound).Send(a.cfg.errors.NotFound(req.Raw()))
}

// findNotFound picks the not-found route whose prefix covers path: the
// prefix's segments are path's first ones. An escaped path (see
// routingPath) is compared by its decoded segments.
func (a *instance) findNotFound(path string, escaped bool) *route {
	for _, nf := range a.notFound {
		n, ok := len(nf.prefix), strings.HasPrefix(path, nf.prefix)
		if escaped {
			n, ok = urlpath.HasPrefix(path, nf.prefix)
		}
		if ok && (n == len(path) || path[n] == '/' || nf.prefix == "") {
			return nf.rt
		}
	}
	return nil
}
