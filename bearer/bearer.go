// Package bearer is Burrow's bearer-auth plugin: an onRequest hook that
// lets a request through only with "authorization: Bearer <key>" for one
// of the configured keys (or a key an Auth function accepts).
//
// The plugin is wrapped, so its hook lands in the context that registers
// it and guards that context's routes and its descendants', and nothing
// else:
//
//	s.Register(func(s *app.Server) error {
//		s.Register(bearer.Plugin(bearer.Keys("k1", "k2")))
//		return s.Get("/private", handler)
//	})
//
// Responses follow @fastify/bearer-auth (≥ 9.2.1): a missing or empty
// header is 401 {"error":"missing authorization header"}; any other
// failure is 401 {"error":"invalid authorization header"}; an Auth error
// is 500 {"error":"internal server error"}. Unlike it, and per RFC 6750 and
// RFC 9110, every 401 carries "www-authenticate: Bearer" (with
// error="invalid_token" for a wrong key), the scheme name matches
// case-insensitively unless CaseSensitive is given, and a request with
// more than one authorization header is 400 invalid_request.
//
// API keys: Store takes the keys from a KeyStore, which holds their
// SHA-256 sums (HashKey) and is asked for the sum of the key sent, never
// the key; MemoryKeys compares it with every key in constant time. Each
// key has scopes, and a route given Scopes needs a key holding them (403
// insufficient_scope otherwise). Header reads the key from a named header
// ("X-API-Key") instead of the authorization header.
package bearer

import (
	"errors"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// PluginName is the name the plugin registers under.
const PluginName = "bearer-auth"

// SchemeName is the name of the security scheme the plugin declares
// (app.Server.DeclareSecurity) where its hook lands, so the routes it
// guards, and only those, carry the requirement in their descriptions.
// With Manual, which installs no hook, it declares none. It is the name
// for the default scheme, Bearer; another scheme's is its name in lower
// case followed by "Auth" ("tokenAuth" for Scheme("Token")), with any
// character a scheme name cannot hold written "_", so plugins of two
// schemes declare two schemes one document can hold.
const SchemeName = "bearerAuth"

// schemeName is the name of the security scheme of auth-scheme scheme,
// in lower case.
func schemeName(scheme string) string {
	if scheme == "bearer" {
		return SchemeName
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, scheme) + "Auth"
}

// Messages of the error bodies.
const (
	MsgMissing  = "missing authorization header"
	MsgInvalid  = "invalid authorization header"
	MsgMultiple = "multiple authorization headers"
	MsgInternal = "internal server error"
	MsgScope    = "insufficient scope"
)

// Error codes of the failures Verify returns (Fastify's codes, so clients
// written against @fastify/bearer-auth keep working).
const (
	CodeMissing  = "FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER"
	CodeInvalid  = "FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER"
	CodeMultiple = "FST_BEARER_AUTH_MULTIPLE_AUTHORIZATION_HEADERS"
	CodeInternal = "FST_BEARER_AUTH_INTERNAL_ERROR"
	CodeScope    = "FST_BEARER_AUTH_INSUFFICIENT_SCOPE"
)

// ErrNoKeys is returned when the plugin has neither a key nor an Auth
// function: a server that rejects every request is a configuration
// mistake.
var ErrNoKeys = errors.New("no bearer keys configured: give bearer.Keys, bearer.Auth or bearer.Store")

// ErrIdentityNeedsPlugin is returned by New given ExposeIdentity. The
// identity lives in a request decorator that Plugin declares in the
// context it guards (with Manual too, next to the Verifier it
// provides); a Verifier from New is attached to routes that nothing
// declared it for, so every accepted key would answer 500.
var ErrIdentityNeedsPlugin = errors.New("bearer.ExposeIdentity needs bearer.Plugin")

// Identity is the value of the request decorator declared by
// ExposeIdentity: which key matched.
type Identity struct {
	// Index is the position of the matched key among those given to Keys,
	// or -1 when an Auth function decided (or before the check).
	Index int
	// Authenticated is true once the check passed.
	Authenticated bool
	// KeyID and Scopes are the ID and scopes of the key a Store found;
	// empty otherwise.
	KeyID  string
	Scopes []string
}

// Plugin returns the wrapped bearer-auth plugin. Invalid options make
// Register fail (and Ready) with a *app.PluginError naming bearer-auth and
// the context it was registered in.
func Plugin(opts ...Option) *app.Plugin {
	var v *Verifier
	c, err := newConfig(opts)
	if err == nil {
		v = newVerifier(c)
	}
	return app.Wrap(func(s *app.Server) error {
		if v.identity != "" {
			if err := s.DecorateRequest(v.identity, Identity{Index: -1}); err != nil {
				return err
			}
		}
		if err := s.OnRoute(v.readScopes); err != nil {
			return err
		}
		if err := s.OnReady(v.rules.Publish); err != nil {
			return err
		}
		if !v.addHook {
			return s.Decorate(v)
		}
		// The hook guards this context's routes: say so in their
		// descriptions, and in the proof of what guards each route.
		if err := s.DeclareSecurity(v.security); err != nil {
			return err
		}
		if err := s.DeclareGuard(v.Guard()); err != nil {
			return err
		}
		// Declared: a hook reading the identity (a per-user rate limit)
		// must run after this one, which Ready checks.
		var sets []app.HookOption
		if v.identity != "" {
			sets = append(sets, app.SetsDecorators(v.identity))
		}
		return s.AddHook(app.OnRequest, v.authenticate, sets...)
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return err }))
}
