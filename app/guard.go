package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/internal/errkind"
)

// GuardKind is what a guard does to the requests of the routes it
// covers.
type GuardKind uint8

// Kinds of guard.
const (
	// GuardAuth authenticates: a request gets through with a credential
	// of the scheme Name ("bearer", "jwt", "session"), or is refused.
	GuardAuth GuardKind = iota + 1
	// GuardCSRF refuses a state-changing request another site's page
	// sent: it covers the routes of unsafe methods only.
	GuardCSRF
	// GuardRateLimit counts the requests against the policy Name.
	GuardRateLimit
	// GuardCORS answers the cross-origin requests (and preflights) of
	// the routes.
	GuardCORS
	// GuardShed refuses requests when the server is overloaded.
	GuardShed
)

var guardKinds = [...]string{GuardAuth: "auth", GuardCSRF: "csrf", GuardRateLimit: "rateLimit", GuardCORS: "cors", GuardShed: "shed"}

func (k GuardKind) String() string {
	if int(k) < len(guardKinds) && guardKinds[k] != "" {
		return guardKinds[k]
	}
	return fmt.Sprintf("GuardKind(%d)", uint8(k))
}

// Guard describes what a plugin enforces on the routes it covers, so
// that Ready can prove what guards each route (RouteInfo.Guards,
// PrintRoutes, Policy): a plugin declares it with DeclareGuard where its
// hook or middleware lands, as it declares a security scheme. Any
// plugin may declare one, a third party's too.
type Guard struct {
	Kind GuardKind
	// Name is the scheme of GuardAuth and the policy of GuardRateLimit;
	// the other kinds take none.
	Name string
	// Cookie says that the credential of a GuardAuth is one a browser
	// sends by itself (a cookie, Basic credentials), so another site's
	// page can make a request carrying it: RequireCSRF checks the routes
	// it reaches.
	Cookie bool
}

func (g Guard) String() string {
	s := g.Kind.String()
	if g.Name != "" {
		s += " " + g.Name
	}
	if g.Cookie {
		s += " (cookie)"
	}
	return s
}

// check reports what makes g unusable.
func (g Guard) check() error {
	named := g.Kind == GuardAuth || g.Kind == GuardRateLimit
	switch {
	case g.Kind == 0 || int(g.Kind) >= len(guardKinds):
		return errkind.New(ErrInvalidGuard, "invalid guard: kind %d is none of app's", g.Kind)
	case named && !schemeName.MatchString(g.Name):
		return errkind.New(ErrInvalidGuard, "invalid %s guard name %q: use letters, digits, ., _ or -", g.Kind, g.Name)
	case !named && g.Name != "":
		return errkind.New(ErrInvalidGuard, "invalid %s guard: it takes no name, not %q", g.Kind, g.Name)
	case g.Cookie && g.Kind != GuardAuth:
		return errkind.New(ErrInvalidGuard, "invalid %s guard: only an auth guard has a cookie", g.Kind)
	}
	return nil
}

// DeclareGuard says that g guards every route of this context and of
// its descendants: a plugin declares it where its hook or middleware
// lands. An OnRoute hook takes a route out of it with Unguard (a route
// the plugin exempts). The same guard declared twice is one.
func (s *Server) DeclareGuard(g Guard) error {
	return s.mutate(fmt.Sprintf("guard %s", g), func() error {
		if err := g.check(); err != nil {
			return fmt.Errorf("%w in %s", err, s.Path())
		}
		if !slices.Contains(s.n.guards, g) {
			s.n.guards = append(s.n.guards, g)
		}
		return nil
	})
}

// Unguard takes the route an OnRoute hook sees out of guard g of its
// contexts: a plugin calls it for a route it leaves alone (a rate
// limit's exempt route), so that the route's guards say what happens.
func Unguard(spec *RouteSpec, g Guard) {
	if spec != nil && !slices.Contains(spec.unguarded, g) {
		spec.unguarded = append(spec.unguarded, g)
	}
}

// Public marks the route open to anyone, for RequireAuth: a log-in
// route, a health check. It changes nothing about how the route serves.
func Public() RouteOption {
	return func(r *routeDef) { r.describe().public = true }
}

// RouteGuards is what guards a route, as its contexts' plugins declared
// it (DeclareGuard). Its JSON form is the one PrintRoutes(AsJSON())
// writes: arrays are never null.
type RouteGuards struct {
	// Auth are the schemes that can authenticate the route, sorted;
	// empty for a route anyone may call.
	Auth []string `json:"auth"`
	// Cookie says one of Auth's credentials is a cookie.
	Cookie bool `json:"-"`
	// CSRF says cross-site requests are refused: never for a safe method
	// (GET, HEAD, OPTIONS), which no CSRF guard checks.
	CSRF bool `json:"csrf"`
	// RateLimit are the names of the rate-limit policies counting the
	// route's requests, sorted.
	RateLimit []string `json:"rateLimit"`
	// CORS says a CORS policy answers for the route.
	CORS bool `json:"cors"`
	// Shed says a load shedder may refuse the route's requests.
	Shed bool `json:"shed,omitempty"`
}

// routeGuards computes the guards of a route of method whose contexts
// are line, less those its OnRoute hooks took it out of.
func routeGuards(line []*node, method string, unguarded []Guard) RouteGuards {
	rg := RouteGuards{Auth: []string{}, RateLimit: []string{}}
	safe := method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
	for _, n := range line {
		for _, g := range n.guards {
			if slices.Contains(unguarded, g) {
				continue
			}
			switch g.Kind {
			case GuardAuth:
				if !slices.Contains(rg.Auth, g.Name) {
					rg.Auth = append(rg.Auth, g.Name)
				}
				rg.Cookie = rg.Cookie || g.Cookie
			case GuardCSRF:
				rg.CSRF = !safe
			case GuardRateLimit:
				if !slices.Contains(rg.RateLimit, g.Name) {
					rg.RateLimit = append(rg.RateLimit, g.Name)
				}
			case GuardCORS:
				rg.CORS = true
			case GuardShed:
				rg.Shed = true
			}
		}
	}
	slices.Sort(rg.Auth)
	slices.Sort(rg.RateLimit)
	return rg
}

func (rg RouteGuards) clone() RouteGuards {
	rg.Auth, rg.RateLimit = slices.Clone(rg.Auth), slices.Clone(rg.RateLimit)
	return rg
}

// any reports whether a guard covers the route: PrintRoutes lists the
// guards of those only.
func (rg RouteGuards) any() bool {
	return len(rg.Auth) > 0 || rg.CSRF || len(rg.RateLimit) > 0 || rg.CORS || rg.Shed
}

// String is PrintRoutes' line for the guards.
func (rg RouteGuards) String() string {
	var parts []string
	if len(rg.Auth) > 0 {
		parts = append(parts, "auth "+strings.Join(rg.Auth, "|"))
	} else {
		parts = append(parts, "no auth")
	}
	if rg.CSRF {
		parts = append(parts, "csrf")
	}
	if len(rg.RateLimit) > 0 {
		parts = append(parts, "rate limit "+strings.Join(rg.RateLimit, ", "))
	}
	if rg.CORS {
		parts = append(parts, "cors")
	}
	if rg.Shed {
		parts = append(parts, "shed")
	}
	return strings.Join(parts, ", ")
}

// Policy is a rule every route of a context must keep: given the
// route's description, it returns why the route breaks it, or nil.
// Ready fails for the first route that breaks one (ErrPolicy, naming
// the route). RequireAuth and RequireCSRF are Burrow's; any function of
// this type is one.
type Policy func(route RouteInfo) error

// Policy adds policies every route of this context and its descendants
// must keep, checked by Ready once the routes are compiled.
func (s *Server) Policy(policies ...Policy) error {
	return s.mutate("policy", func() error {
		for _, p := range policies {
			if p == nil {
				return errkind.New(ErrInvalidHandler, "invalid policy in %s: nil", s.Path())
			}
		}
		s.n.policies = append(s.n.policies, policies...)
		return nil
	})
}

// RequireAuth is the policy that every route requires authentication
// (a guard of kind GuardAuth covers it), except those marked Public.
func RequireAuth() Policy {
	return func(r RouteInfo) error {
		if len(r.Guards.Auth) == 0 && !r.Public {
			return errors.New("requires no authentication: register the plugin that authenticates where the route is, or mark it app.Public()")
		}
		return nil
	}
}

// RequireCSRF is the policy that every route of an unsafe method (not
// GET, HEAD or OPTIONS) that a cookie can authenticate (a GuardAuth
// with Cookie covers it) refuses cross-site requests: a guard of kind
// GuardCSRF covers it too.
func RequireCSRF() Policy {
	return func(r RouteInfo) error {
		if r.Guards.Cookie && !r.Guards.CSRF && r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
			return errors.New("can be authenticated by a cookie but does not refuse cross-site requests: " +
				"register a CSRF guard (plugins/csrf) where the route is")
		}
		return nil
	}
}

// checkPolicies fails for the first policy of line (root first) that
// ri breaks.
func checkPolicies(line []*node, ri *RouteInfo) error {
	for _, n := range line {
		for _, p := range n.policies {
			if err := p(ri.clone()); err != nil {
				return &RouteError{Method: ri.Method, Path: ri.Path, Context: ri.Context,
					Err: errkind.New(ErrPolicy, "%w (a policy of %s)", err, n.ctx.Path())}
			}
		}
	}
	return nil
}

// routeJSON is one route of PrintRoutes(AsJSON()).
type routeJSON struct {
	Method  string      `json:"method"`
	Path    string      `json:"path"`
	Context string      `json:"context"`
	Guards  RouteGuards `json:"guards"`
}

// routesJSON is the JSON array of the routes of rs, with their guards,
// one route a line.
func routesJSON(rs []RouteInfo) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "root > api" as written
	b.WriteString("[")
	for i, r := range rs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		// Strings and bools always encode; the encoder ends each with
		// a newline, which the array's commas follow.
		_ = enc.Encode(routeJSON{Method: r.Method, Path: r.Path, Context: r.Context, Guards: r.Guards.clone()})
		s := b.String()
		b.Reset()
		b.WriteString(strings.TrimSuffix(s, "\n"))
	}
	b.WriteString("\n]\n")
	return b.String()
}
