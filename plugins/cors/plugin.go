package cors

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
)

// Route is a route's CORS setting, which Override and Off give it. The
// plugin replaces it, at Ready, by the policy it resolved for the route,
// which PrintRoutes shows.
type Route struct {
	opts []Option
	off  bool
	// Set by the plugin whose context is nearest the route.
	by  *instance
	pol *policy // nil when off
}

// String describes the setting for PrintRoutes.
func (r *Route) String() string {
	switch {
	case r.off:
		return "off"
	case r.by == nil && r.opts != nil:
		return "override"
	case r.by == nil:
		return ""
	}
	s := r.pol.String() + " (" + r.by.context + ")"
	if r.opts != nil {
		s = "override: " + s
	}
	return s
}

// Override gives a route a policy of its own: opts applied over the
// options of the plugin of its context (Override(cors.Origins("*")) keeps
// the context's methods and headers and allows any origin). The result is
// checked at Ready, which fails naming the route when it is invalid.
func Override(opts ...Option) app.RouteOption {
	return app.WithConfig(&Route{opts: append([]Option{}, opts...)})
}

// Off turns CORS off for a route: its answers carry no CORS header, and
// its preflights are answered 405, as without the plugin.
func Off() app.RouteOption { return app.WithConfig(&Route{off: true}) }

// instance is one registration of the plugin.
type instance struct {
	opts    []Option
	pol     *policy
	context string
}

// Plugin returns the wrapped CORS plugin: it applies to the context
// registering it and its descendants. At least one origin option is
// required (ErrNoOrigin). Invalid options make Register fail (and Ready)
// with a *app.PluginError naming cors and the context.
func Plugin(opts ...Option) *app.Plugin {
	opts = append([]Option{}, opts...)
	pol, err := newPolicy(opts)
	return app.Wrap(func(s *app.Server) error {
		// One instance per registration: the value may be registered in
		// several contexts, each the owner of its own routes.
		in := &instance{opts: opts, pol: pol, context: s.Path()}
		if err := s.DeclareGuard(guard); err != nil {
			return err
		}
		if err := s.OnRoute(in.resolve); err != nil {
			return err
		}
		// Outermost: the answers an ancestor's middleware gives this
		// context's routes (a rate limit's 429) carry the policy too.
		return s.Use(in.middleware, app.Outermost())
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return err }))
}

// guard is what the plugin declares where it lands; a route it turns
// Off is taken out of it.
var guard = app.Guard{Kind: app.GuardCORS}

// resolve gives a route the policy it answers with: this plugin's, or
// the route's Override merged over it, or none (Off). It runs for every
// route of the plugin's context and its descendants, ancestors' plugins
// first, so the nearest plugin's resolution is the one kept.
func (in *instance) resolve(spec *app.RouteSpec) error {
	r := &Route{by: in, pol: in.pol}
	if own, ok := app.RouteConfig[*Route](spec); ok {
		r.opts, r.off = own.opts, own.off
		switch {
		case r.off:
			r.pol = nil
			app.Unguard(spec, guard)
		case r.opts != nil:
			pol, err := newPolicy(append(append([]Option{}, in.opts...), r.opts...))
			if err != nil {
				return err
			}
			r.pol = pol
		}
	}
	app.SetRouteConfig(spec, r)
	return nil
}

// middleware is the plugin's work on every request of its contexts.
func (in *instance) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pol := in.pol
		route, resolved := app.RouteConfigOf[*Route](r)
		if resolved {
			if route.by != in {
				next.ServeHTTP(w, r) // a nearer plugin's route
				return
			}
			pol = route.pol
		}
		switch {
		case pol == nil: // Off
		case app.Preflight(r):
			if resolved { // the preflight's route: answered here, and no further
				pol.preflight(w, r)
				return
			}
		case !resolved && r.Method == http.MethodOptions && len(r.Header[hRequestMethod]) > 0:
			// A preflight for a method the path does not serve, or for a
			// path no route has: the 405 or 404 follows, with no CORS
			// header. (An OPTIONS route of the path's answers its
			// preflights itself, with the headers of any answer.)
		default:
			if !resolved {
				// A 404 or a 405, which every plugin of the lineage
				// sees: the nearest, running last, has the last word.
				clearCORS(w.Header())
			}
			pol.actual(w.Header(), r.Header[hOrigin])
			if !pol.anyOrigin {
				app.Vary(r, hOrigin) // kept whatever the handler sets
			}
		}
		next.ServeHTTP(w, r)
	})
}

// clearCORS removes what an outer plugin set on an answer.
func clearCORS(h http.Header) {
	if _, ok := h[hAllowOrigin]; ok {
		delete(h, hAllowOrigin)
		delete(h, hAllowCreds)
		delete(h, hExpose)
	}
}
