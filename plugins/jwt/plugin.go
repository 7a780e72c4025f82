package jwt

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/scopetoken"
	"github.com/burrow-go/burrow/plugins/health"
)

// PluginName is the name the plugin registers under.
const PluginName = "jwt"

// SchemeName is the name of the security scheme the plugin declares
// where it guards routes: an openIdConnect scheme with Discovery, an
// http bearer scheme of format JWT otherwise.
const SchemeName = "jwtAuth"

// GuardName is the name of the auth guard the plugin declares where
// it guards routes (app.Server.DeclareGuard), unless Optional.
const GuardName = "jwt"

// CheckName is the name of the readiness check Health adds.
const CheckName = "jwks"

// The answers' error codes: RFC 6750's (§3.1), and none for a request
// without a token, which RFC 6750 answers without an error code.
const (
	CodeInvalidToken      = "invalid_token"
	CodeInsufficientScope = "insufficient_scope"
	CodeInvalidRequest    = "invalid_request"
)

// Answers the plugin gives, in the server's error format.
var (
	errMissing  = httpx.NewError(http.StatusUnauthorized, "", "Missing bearer token")
	errInvalid  = httpx.NewError(http.StatusUnauthorized, CodeInvalidToken, "Invalid token")
	errMultiple = httpx.NewError(http.StatusBadRequest, CodeInvalidRequest, "More than one Authorization header")
	errScope    = httpx.NewError(http.StatusForbidden, CodeInsufficientScope, "Insufficient scope")
)

// challenges are the WWW-Authenticate values of the answers (RFC 6750
// §3), for the plugin's scheme: they never echo the token nor say which
// check failed.
type challenges struct {
	missing, invalid, request []string
}

func newChallenges(scheme string) challenges {
	return challenges{missing: []string{scheme}, invalid: []string{scheme + ` error="invalid_token"`},
		request: []string{scheme + ` error="invalid_request"`}}
}

// decorator is the request decorator the hook leaves the claims in; the
// *Claims[T] request value reads it.
const decorator = "burrow.jwt"

// guard is one registration of the plugin.
type guard[T any] struct {
	c        *config
	remote   *remote // nil for static keys
	v        *verifier
	level    zapcore.Level
	custom   bool   // T has fields: decode the payload into it
	scheme   string // the auth-scheme, "Bearer"
	prefix   string // scheme + " "
	optional bool
	ch       challenges

	rules scopetoken.Routes[rule] // the routes' Scopes
}

// Plugin returns the wrapped plugin that verifies the bearer token of
// every request to the context registering it and its descendants, and
// provides its claims there as the request value *Claims[T] (T receives
// the payload, for claims of the issuer's own; struct{} for none).
// Requests without a valid token are answered 401, those lacking a
// route's Scopes 403. Invalid options make Register (and Ready) fail
// with a *app.PluginError naming the plugin.
func Plugin[T any](opts ...Option) *app.Plugin {
	g, err := newGuard[T](opts)
	return app.Wrap(func(s *app.Server) error {
		if err := s.DecorateRequest(decorator, (*Claims[T])(nil)); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(claimsOf[T])); err != nil {
			return err
		}
		if err := s.DeclareSecurity(securityScheme(g.c)); err != nil {
			return err
		}
		// Optional lets requests without a token through: the routes
		// do not require authentication, whatever they accept.
		if !g.optional {
			if err := s.DeclareGuard(app.Guard{Kind: app.GuardAuth, Name: GuardName}); err != nil {
				return err
			}
		}
		if err := g.setup(s); err != nil {
			return err
		}
		// Declared: a hook reading the claims' decorator must run after
		// this one, which Ready checks.
		return s.AddHook(app.OnRequest, g.authenticate, app.SetsDecorators(decorator))
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return err }))
}

// newGuard is the guard of opts, or what is wrong with them.
func newGuard[T any](opts []Option) (*guard[T], error) {
	c, err := newConfig(opts)
	g := &guard[T]{c: c}
	if err != nil {
		return g, err
	}
	g.level, g.scheme, g.prefix, g.optional, g.ch = c.logLevel, c.scheme, c.scheme+" ", c.optional, newChallenges(c.scheme)
	g.custom = reflect.TypeFor[T]().Size() > 0 // struct{} holds nothing to decode
	g.v = &verifier{issuer: c.issuer, audience: c.audience, leeway: c.leeway, maxSize: c.maxSize,
		require: c.require, now: c.now}
	if len(c.static) > 0 {
		g.v.static = newKeySet(c.static)
		return g, nil
	}
	r := newRemote(c.discovery, c.jwksURL, c.client)
	r.now = c.now
	if c.wait != nil {
		r.wait = c.wait
	}
	g.v.remote, g.remote = r, r
	return g, nil
}

// setup readies the context the guard lands in: the routes' Scopes, and
// the key set's fetching from Ready to Close.
func (g *guard[T]) setup(s *app.Server) error {
	if err := s.OnRoute(g.readScopes); err != nil {
		return err
	}
	if err := s.OnReady(g.rules.Publish); err != nil {
		return err
	}
	r := g.remote
	if r == nil {
		return nil
	}
	r.log = s.Log()
	if err := s.OnReady(func() error { r.start(); return nil }); err != nil {
		return err
	}
	if err := s.OnClose(func(context.Context) error { r.stop(); return nil }); err != nil {
		return err
	}
	if g.c.checks != nil {
		return s.Register(g.c.checks.Check(CheckName, r.check, health.Interval(time.Second)))
	}
	return nil
}

// securityScheme is the security scheme the plugin declares.
func securityScheme(c *config) app.SecurityScheme {
	switch {
	case c == nil:
		return app.SecurityScheme{}
	case c.discovery != "":
		return app.SecurityScheme{Name: SchemeName, Type: "openIdConnect", OpenIDConnectURL: discoveryURL(c.discovery)}
	}
	return app.SecurityScheme{Name: SchemeName, Type: "http", Scheme: strings.ToLower(c.scheme), BearerFormat: "JWT"}
}

// check is the readiness check: it fails until a key set was fetched.
func (r *remote) check(context.Context) error {
	if r.keys.Load() == nil {
		return errNotFetched
	}
	return nil
}

var errNotFetched = errors.New("no key fetched from the issuer yet")

type claimsIn struct {
	app.In
	Req *httpx.Request
}

// claimsOf is the constructor of the *Claims[T] request value: the
// claims the hook verified; nil for a request without a token that
// Optional let through.
func claimsOf[T any](_ context.Context, in claimsIn) (*Claims[T], func(bool) error, error) {
	v, _ := in.Req.Decorator(decorator)
	c, _ := v.(*Claims[T])
	return c, nil, nil
}

// readScopes is the OnRoute hook: it takes each route's Scopes, so Ready
// knows a plugin guards it, and keeps it for the requests.
func (g *guard[T]) readScopes(spec *app.RouteSpec) error {
	r, ok := app.RouteConfig[*rule](spec)
	if !ok {
		return nil
	}
	if err := scopetoken.Check("jwt.Scopes", r.scopes); err != nil {
		return err
	}
	r.challenge = scopetoken.Challenge(g.scheme, r.scopes)
	g.rules.Set(spec, r)
	return nil
}

// authenticate is the onRequest hook.
func (g *guard[T]) authenticate(req *httpx.Request, rep *httpx.Reply) error {
	c, err := g.verify(req, rep)
	if err != nil || c == nil {
		return err
	}
	return req.SetDecorator(decorator, c)
}

// verify returns the claims of req's valid token, or the refusal; nil
// and nil for a request without a token that Optional lets through.
func (g *guard[T]) verify(req *httpx.Request, rep *httpx.Reply) (*Claims[T], error) {
	values := req.Raw().Header["Authorization"]
	switch {
	case len(values) > 1:
		return nil, g.refuse(req, rep, errMultiple, g.ch.request, "more than one Authorization header")
	case len(values) == 0 || values[0] == "":
		if g.optional && g.rules.Of(req) == nil {
			return nil, nil
		}
		return nil, g.refuse(req, rep, errMissing, g.ch.missing, "no bearer token")
	}
	h := values[0]
	if len(h) < len(g.prefix) || !strings.EqualFold(h[:len(g.prefix)], g.prefix) {
		return nil, g.refuse(req, rep, errInvalid, g.ch.invalid, "not a "+g.scheme+" token")
	}
	token := strings.TrimSpace(h[len(g.prefix):])
	reg, payload, err := g.v.verify(req.Context(), token)
	if err != nil {
		return nil, g.refuse(req, rep, errInvalid, g.ch.invalid, err.Error())
	}
	c := &Claims[T]{Issuer: reg.Issuer, Subject: reg.Subject, Audience: reg.Audience,
		Expires: reg.Expires.time(), NotBefore: reg.NotBefore.time(), IssuedAt: reg.IssuedAt.time(),
		ID: reg.ID, Scopes: reg.scopes()}
	if g.custom {
		if err := json.Unmarshal(payload, &c.Custom); err != nil {
			return nil, g.refuse(req, rep, errInvalid, g.ch.invalid, "claims do not fit the claims type")
		}
	}
	if r := g.rules.Of(req); r != nil && !scopetoken.All(c.Scopes, r.scopes) {
		return nil, g.refuse(req, rep, errScope, r.challenge, "insufficient scope")
	}
	return c, nil
}

// refuse logs why and answers failure.
func (g *guard[T]) refuse(req *httpx.Request, rep *httpx.Reply, failure *httpx.Error, challenge []string, why string) error {
	if ce := req.Log().Check(g.level, "unauthorized: "+why); ce != nil {
		ce.Write(zap.Int("statusCode", failure.StatusCode))
	}
	rep.Header()["Www-Authenticate"] = challenge
	return failure // answered by the route's error handler: the server's error shape, or the API's own
}
