package app

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// routeConfig is what WithConfig gave a route: one value per dynamic
// type, each marked once an OnRoute hook has read it.
type routeConfig struct {
	values []any
	read   []bool
}

// RouteConfig is the route's config value of type T (given with
// WithConfig, or set by an earlier OnRoute hook), and whether it has one;
// an OnRoute hook calls it, which marks the value read. T may be an
// interface: the first value that implements it is returned.
func RouteConfig[T any](spec *RouteSpec) (T, bool) {
	var zero T
	if spec == nil || spec.config == nil {
		return zero, false
	}
	for i, v := range spec.config.values {
		if t, ok := v.(T); ok {
			spec.config.read[i] = true
			return t, true
		}
	}
	return zero, false
}

// SetRouteConfig gives the route v in an OnRoute hook, replacing its
// value of v's type: a plugin resolves what the route asked for (a
// setting of its own, merged with its context's) once, at Ready, into
// the value its middleware reads per request with RouteConfigOf. A hook
// running later (a descendant context's) sees the value and may replace
// it in turn, so the nearest context's plugin has the last word. A value
// set here counts as read; a nil v is ignored.
func SetRouteConfig(spec *RouteSpec, v any) {
	if spec == nil || v == nil {
		return
	}
	if spec.config == nil {
		spec.config = &routeConfig{}
	}
	c := spec.config
	t := reflect.TypeOf(v)
	for i, have := range c.values {
		if reflect.TypeOf(have) == t {
			c.values[i], c.read[i] = v, true
			return
		}
	}
	c.values = append(c.values, v)
	c.read = append(c.read, true)
}

// RouteConfigOf is the config value of type T of the route r is served
// by, as a middleware sees r (Use), and whether it has one. For a request
// answered 405 it is the config of the route the preflight asks about:
// the route of the path for the method in Access-Control-Request-Method,
// for an OPTIONS request that names one the path serves (see
// Preflight). It allocates nothing.
func RouteConfigOf[T any](r *http.Request) (T, bool) {
	var zero T
	c, _ := r.Context().Value(callKey{}).(*call)
	if c == nil || c.rt == nil || c.rt.config == nil {
		return zero, false
	}
	for _, v := range c.rt.config.values {
		if t, ok := v.(T); ok {
			return t, true
		}
	}
	return zero, false
}

// checkConfig fails for a config value of a route's that no OnRoute hook
// read.
func checkConfig(c *routeConfig, method, path, ctx string) error {
	if c == nil {
		return nil
	}
	for i, v := range c.values {
		if !c.read[i] {
			return &RouteError{Method: method, Path: path, Context: ctx, Err: errkind.New(ErrUnreadConfig,
				"has config %s, which no OnRoute hook of its contexts reads: the plugin it is for is not registered in %s or an ancestor",
				configString(v), ctx)}
		}
	}
	return nil
}

// configString is how PrintRoutes and errors show a config value: its
// type, and its text when it has one.
func configString(v any) string {
	s := fmt.Sprintf("%T", v)
	if st, ok := v.(fmt.Stringer); ok {
		s += " " + st.String()
	}
	return s
}

// configLine is PrintRoutes' line for the route's config values, empty
// for none.
func (rt *route) configLine() string {
	if rt.config == nil || len(rt.config.values) == 0 {
		return ""
	}
	parts := make([]string, len(rt.config.values))
	for i, v := range rt.config.values {
		parts[i] = configString(v)
	}
	return "config: " + strings.Join(parts, ", ")
}

// Preflight reports whether r, an OPTIONS request carrying
// Access-Control-Request-Method as a middleware sees it (Use), asks about
// a method its path serves: a route of the path has that method, or the
// path is a Mount's, which serves every method. The middleware running
// then is that route's context's, whichever context registered the
// path's other methods, and RouteConfigOf reads that route's config: a
// CORS middleware answers the preflight with the policy of the context
// that will serve the request it announces. False for every other
// request, a preflight for a method the path does not serve (which goes,
// as any 405, through the middleware of the path's owner), and an
// OPTIONS request to a route registered for OPTIONS, which answers it
// itself.
func Preflight(r *http.Request) bool {
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	c, _ := r.Context().Value(callKey{}).(*call)
	if c == nil || c.rt == nil {
		return false
	}
	return c.allow != "" || c.rt.info.Method == anyMethod
}

// preflightTarget is the route of path for the method r's
// Access-Control-Request-Method names, if the path has one; ps is
// emptied after the look-up.
func (a *instance) preflightTarget(r *http.Request, path string, escaped bool, ps *httpx.Params) *route {
	m := r.Header.Get("Access-Control-Request-Method")
	if m == "" || m == http.MethodOptions {
		return nil
	}
	var rt *route
	var match httpx.Match
	if escaped {
		rt, _, match = a.router.LookupEscaped(m, path, ps)
	} else {
		rt, _, match = a.router.Lookup(m, path, ps)
	}
	*ps = (*ps)[:0]
	if match != httpx.Found {
		return nil
	}
	return rt
}
