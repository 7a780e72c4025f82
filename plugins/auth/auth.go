// Package auth composes several ways of authenticating into one guard:
// a context whose routes take a session cookie, a bearer token or a JWT
// (what @fastify/auth does for Fastify, except that a wrong credential
// never falls through to the next way, where its default tries each in
// turn).
//
//	s.Register(func(s *app.Server) error {
//		s.Register(session.Plugin[account](store))
//		s.Register(auth.AnyOf(
//			jwt.Method(fromClaims, jwt.Discovery(issuer), jwt.Audience("todos")),
//			bearer.Method(fromKey, bearer.Keys(tokens...)),
//			session.Method(store, fromSession),
//		))
//		app.Get(s, "/todos", list) // list takes the user: a request value of type user
//		return nil
//	}, app.Name("api"))
//
// The rules:
//
//   - The first method whose credential the request carries decides, in
//     the order given: its answer stands. A credential that is present
//     and wrong is refused; the request is never tried against the next
//     method, so a bad token cannot fall through to a cookie.
//   - A request that carries no credential at all gets the first
//     method's refusal of a missing credential (bearer's 401 with
//     WWW-Authenticate: Bearer, when it comes first). A 401 a method
//     gives without a challenge (a session that ended) gets the
//     challenges of the other methods' schemes.
//   - The identity, whichever method found it, is one request value of
//     type T, the type parameter shared by the methods: handlers and
//     hooks take T. It is also the request decorator Decorator, for a
//     per-user rate limit (ratelimit.ByDecorator) placed after the guard.
//   - A request a cookie method authenticated (Method's Guard has Cookie)
//     is refused as cross-site request forgery when its method is unsafe
//     (not GET, HEAD or OPTIONS) and another site's page sent it, by the
//     rule of the csrf plugin (net/http's CrossOriginProtection), with
//     its answer. A request authenticated by a token is not: no browser
//     adds a token by itself.
//   - The guard is declared (app.Server.DeclareGuard): one auth guard per
//     method, and a CSRF guard when a method is a cookie's, so that
//     PrintRoutes and the policies (app.RequireAuth, app.RequireCSRF)
//     see them; and each method's security scheme, as one of a group of
//     alternatives (app.SecurityScheme.AnyOf), so that the OpenAPI
//     document lists one security requirement per method.
//
// A Method is an interface: a plugin of another module (plugins/jwt)
// implements it without this package knowing the plugin.
package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/csrf"
)

// PluginName is the name AnyOf's plugin registers under.
const PluginName = "auth"

// Decorator is the request decorator holding the identity of type T
// that the deciding method found; the zero T before the guard ran.
const Decorator = "burrow.auth"

// Method is one way in: a credential, how to find it and how to check
// it. bearer.Method, session.Method and jwt.Method are Burrow's.
type Method[T any] interface {
	// Guard describes the method: an auth guard (app.GuardAuth) named
	// after its scheme ("bearer", "jwt", "session"), with Cookie for a
	// credential a browser sends by itself.
	Guard() app.Guard
	// Security is the method's security scheme, for the routes'
	// descriptions: AnyOf declares it as one of its alternatives.
	Security() app.SecurityScheme
	// Setup prepares the context AnyOf guards, when the plugin loads:
	// it reads the method's route options (scopes), starts and stops
	// what it runs (a key set's refresh).
	Setup(s *app.Server) error
	// Present reports whether req carries the method's credential, by
	// looking only (a header, a cookie): it must not read the body nor
	// write the reply.
	Present(req *httpx.Request) bool
	// Authenticate checks the credential and returns who it proves, or
	// the refusal: an error (an *httpx.Error the error handler answers)
	// or an answer the method sent itself (rep.Sent). Called for a
	// request that carries no credential of any method, it answers as
	// for a missing credential.
	Authenticate(req *httpx.Request, rep *httpx.Reply) (T, error)
}

// ErrNoMethod is returned (through Ready) by AnyOf given no method.
var ErrNoMethod = errors.New("auth.AnyOf needs at least one method")

// AnyOf returns the wrapped plugin that lets a request to the context
// registering it, and to its descendants, through when one of methods
// authenticates it (see the package doc for the rules), and provides
// the identity there as the request value T. Two methods of one
// scheme name, or none, make Register (and Ready) fail naming the
// plugin.
func AnyOf[T any](methods ...Method[T]) *app.Plugin {
	g := &guard[T]{methods: slices.Clone(methods), cop: http.NewCrossOriginProtection()}
	err := g.check()
	return app.Wrap(func(s *app.Server) error {
		if err := s.DecorateRequest(Decorator, *new(T)); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(identityOf[T])); err != nil {
			return err
		}
		for _, m := range g.methods {
			if err := m.Setup(s); err != nil {
				return fmt.Errorf("setting up method %s: %w", m.Guard().Name, err)
			}
			if err := s.DeclareGuard(m.Guard()); err != nil {
				return err
			}
			sc := m.Security()
			sc.AnyOf = PluginName
			if err := s.DeclareSecurity(sc); err != nil {
				return err
			}
			g.cookies = append(g.cookies, m.Guard().Cookie)
			g.cookie = g.cookie || m.Guard().Cookie
			if c := challenge(sc); c != "" && !slices.Contains(g.challenges, c) {
				g.challenges = append(g.challenges, c)
			}
		}
		if g.cookie {
			if err := s.DeclareGuard(app.Guard{Kind: app.GuardCSRF}); err != nil {
				return err
			}
		}
		// Declared: a hook reading the identity (a per-user rate limit)
		// must run after this one, which Ready checks.
		return s.AddHook(app.OnRequest, g.authenticate, app.SetsDecorators(Decorator))
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return err }))
}

// guard is one registration of AnyOf.
type guard[T any] struct {
	methods []Method[T]
	cookies []bool // cookies[i]: methods[i] is a cookie's, whose requests are checked for CSRF
	cookie  bool   // a method is a cookie's
	cop     *http.CrossOriginProtection
	// challenges are the WWW-Authenticate values of the methods' schemes
	// that have one, for a 401 a method gave without.
	challenges []string
}

// challenge is the auth-scheme a client answers a 401 of sc with, ""
// for a scheme that has none (an API key, a cookie).
func challenge(sc app.SecurityScheme) string {
	switch {
	case sc.Type == "openIdConnect":
		return "Bearer"
	case sc.Type == "http" && sc.Scheme != "":
		return strings.ToUpper(sc.Scheme[:1]) + sc.Scheme[1:]
	}
	return ""
}

// check refuses a composition that cannot work.
func (g *guard[T]) check() error {
	if len(g.methods) == 0 {
		return ErrNoMethod
	}
	var names []string
	for i, m := range g.methods {
		if m == nil {
			return fmt.Errorf("auth.AnyOf: method %d is nil", i)
		}
		gd := m.Guard()
		if gd.Kind != app.GuardAuth {
			return fmt.Errorf("auth.AnyOf: method %d has a %s guard, not an auth guard", i, gd.Kind)
		}
		if slices.Contains(names, gd.Name) {
			return fmt.Errorf("auth.AnyOf: two methods are named %q", gd.Name)
		}
		names = append(names, gd.Name)
	}
	return nil
}

// csrfRefusal is the csrf plugin's answer, so that a client sees one
// answer to a forged request whoever refused it.
var csrfRefusal = &httpx.Error{StatusCode: http.StatusForbidden, Code: csrf.Code,
	Message: "cross-origin request refused", Err: csrf.ErrCrossOrigin}

// authenticate is the onRequest hook: the first method whose credential
// is present decides.
func (g *guard[T]) authenticate(req *httpx.Request, rep *httpx.Reply) error {
	i := 0 // no credential at all: the first method refuses it
	for j, c := range g.methods {
		if c.Present(req) {
			i = j
			break
		}
	}
	m := g.methods[i]
	id, err := m.Authenticate(req, rep)
	if err != nil || rep.Sent() {
		// Every 401 says how to authenticate (RFC 9110 §11.6.1): a
		// method's refusal without a challenge (a dead session) gets
		// those of the other ways in.
		var he *httpx.Error
		if errors.As(err, &he) && he.StatusCode == http.StatusUnauthorized && len(g.challenges) > 0 &&
			len(rep.Header()["Www-Authenticate"]) == 0 {
			rep.Header()["Www-Authenticate"] = slices.Clip(g.challenges)
		}
		return err
	}
	if g.cookies[i] && g.forged(req.Raw()) {
		return csrfRefusal
	}
	return req.SetDecorator(Decorator, id)
}

// forged reports whether r, authenticated by a cookie, is an unsafe
// request another site's page sent.
func (g *guard[T]) forged(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return g.cop.Check(r) != nil
}

type identityIn struct {
	app.In
	Req *httpx.Request
}

// identityOf is the constructor of the request value T: what the
// deciding method found.
func identityOf[T any](_ context.Context, in identityIn) (T, func(bool) error, error) {
	v, _ := in.Req.Decorator(Decorator)
	id, _ := v.(T)
	return id, nil, nil
}
