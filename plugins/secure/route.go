package secure

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
)

// Route is a route's security-header setting, which Override and Skip
// give it (with app.WithConfig underneath). The nearest plugin replaces
// it, at Ready, by the policy it resolved for the route, which
// PrintRoutes shows.
type Route struct {
	opts []Option
	skip bool
	by   *instance // the plugin that resolved it; nil as the route gave it
	pol  *policy   // nil when skipped
}

// String describes the setting for PrintRoutes.
func (r *Route) String() string {
	switch {
	case r.skip:
		return "skip"
	case r.by == nil:
		return "override"
	case r.opts != nil:
		return "override (" + r.by.context + ")"
	}
	return r.by.context
}

// Override gives a route a policy of its own: opts applied over the
// options of the plugin of its context (Override(secure.Header("X-Frame-Options",
// "")) keeps the context's policy but lets the page be framed). Ready
// fails naming the route when the result is invalid, or when no plugin
// is registered in its contexts. A nonce the override adds is read with
// NonceOf (the Nonce request value exists where the context's policy
// has one).
func Override(opts ...Option) app.RouteOption {
	return app.WithConfig(&Route{opts: append([]Option{}, opts...)})
}

// Skip leaves a route's answers without the plugin's headers, an
// ancestor's plugin's included; what the route sets itself stays.
func Skip() app.RouteOption { return app.WithConfig(&Route{skip: true}) }

// instance is one registration of the plugin.
type instance struct {
	opts    []Option
	pol     *policy
	context string
}

// resolve gives a route the policy it answers with: this plugin's, the
// route's Override over it, or none (Skip). It runs for every route of
// the plugin's context and its descendants, ancestors' plugins first, so
// the nearest plugin's resolution is the one kept.
func (in *instance) resolve(spec *app.RouteSpec) error {
	r := &Route{by: in, pol: in.pol}
	if own, ok := app.RouteConfig[*Route](spec); ok {
		r.opts, r.skip = own.opts, own.skip
		switch {
		case r.skip:
			r.pol = nil
		case r.opts != nil:
			c := newConfig(append(append([]Option{}, in.opts...), r.opts...))
			if c.err != nil {
				return c.err
			}
			r.pol = compile(c)
		}
	}
	app.SetRouteConfig(spec, r)
	return nil
}

// policyFor is the policy in applies to r: its own, the route's as this
// plugin resolved it, or nil for a route that skips the plugins. A
// nearer plugin's resolution leaves this one's policy in place, for the
// nearer one to replace header by header.
func (in *instance) policyFor(r *http.Request) *policy {
	route, ok := app.RouteConfigOf[*Route](r)
	switch {
	case !ok:
		return in.pol
	case route.skip:
		return nil
	case route.by == in:
		return route.pol
	}
	return in.pol
}
