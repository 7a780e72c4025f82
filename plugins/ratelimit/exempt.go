package ratelimit

import (
	"maps"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// Exempt, given to a route with app.WithConfig, takes the route out of
// the rate limits of its contexts: out of the policies it names, or out
// of every policy when it names none.
//
//	s.Get("/healthz", healthz, app.WithConfig(ratelimit.Exempt{}))
//	s.Get("/feed", feed, app.WithConfig(ratelimit.Exempt{Policies: []string{"user"}}))
//
// Ready fails (app.ErrUnreadConfig) for a route given it where no
// rate-limit plugin runs, which would be a mistake about where the
// plugin is registered.
type Exempt struct {
	Policies []string
}

func (e Exempt) String() string {
	if len(e.Policies) == 0 {
		return "(every policy)"
	}
	return "(" + strings.Join(e.Policies, ", ") + ")"
}

// covers reports whether e exempts the route from policy name.
func (e *Exempt) covers(name string) bool {
	return e != nil && (len(e.Policies) == 0 || slices.Contains(e.Policies, name))
}

// routeKey is a route as its hook sees it (httpx.RouteInfo; a HEAD twin
// has its GET's).
type routeKey struct{ method, pattern string }

// readExempt is the limiter's onRoute hook: it reads each route's Exempt
// (so Ready knows a plugin took it) and, for the hook placement, keeps
// it by route; a middleware reads it per request (app.RouteConfigOf).
func (l *Limiter) readExempt(spec *app.RouteSpec) error {
	e, ok := app.RouteConfig[Exempt](spec)
	if !ok || spec.Twin {
		return nil
	}
	for _, p := range l.policies {
		if e.covers(p.Name) {
			app.Unguard(spec, app.Guard{Kind: app.GuardRateLimit, Name: p.Name})
		}
	}
	if !l.hook {
		return nil
	}
	m := maps.Clone(*l.exempt.Load())
	m[routeKey{spec.Method, spec.Path}] = &e
	l.exempt.Store(&m)
	return nil
}
