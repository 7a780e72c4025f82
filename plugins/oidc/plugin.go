package oidc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"go.uber.org/zap"
	"golang.org/x/oauth2"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

// PluginName is the name the plugin registers under.
const PluginName = "oidc"

// Client is the application's registration at the identity provider.
type Client struct {
	// Issuer is the provider's issuer URL, where its discovery document
	// is found (Issuer + "/.well-known/openid-configuration") and what
	// the ID tokens' iss must be.
	Issuer string
	// ID is the client_id, what the ID tokens' aud must hold.
	ID string
	// Secret is the client secret, sent at the code exchange; empty for
	// a public client, which PKCE alone protects.
	Secret string
	// RedirectURL is the absolute URL of the callback, as registered at
	// the provider ("https://todo.example/login/oidc/callback"); its path
	// is the callback route's.
	RedirectURL string
}

// Identity is who the provider says logged in, from the verified ID
// token.
type Identity struct {
	// Subject is the sub claim: the user's stable id at the issuer.
	Subject string
	// PreferredUsername, Email and EmailVerified are the claims of those
	// names, empty when the token has none. Only Subject identifies a
	// user for good; the others may change or be chosen by the user.
	PreferredUsername string
	Email             string
	EmailVerified     bool
	// IDToken is the ID token itself, for EndSession's id_token_hint.
	IDToken string

	token *gooidc.IDToken
}

// Claims decodes the ID token's claims into v (a struct with json tags),
// for claims Identity does not carry.
func (id *Identity) Claims(v any) error { return id.token.Claims(v) }

// Error codes of the refused callbacks.
const (
	// CodeState refuses a callback that is not the answer to a log-in
	// this browser started and has not finished: no flow cookie, an
	// unknown, expired or used flow, another state.
	CodeState = "FST_OIDC_STATE"
	// CodeDenied refuses a callback carrying an error from the provider
	// (the user said no: access_denied).
	CodeDenied = "FST_OIDC_DENIED"
	// CodeToken refuses a callback whose code the provider did not
	// exchange, or whose ID token failed a check.
	CodeToken = "FST_OIDC_TOKEN" // #nosec G101 -- an error code, not a credential
)

// ErrLogin is the cause of every refused callback (errors.Is through
// the *httpx.Error the route returns).
var ErrLogin = errors.New("log-in refused")

// plugin is one registration.
type plugin struct {
	config
	c            Client
	callbackPath string

	mu       sync.Mutex
	disc     *discovered
	failedAt time.Time // of the last discovery that failed
}

// discovered is what the discovery document gave.
type discovered struct {
	oauth      oauth2.Config
	verifier   *gooidc.IDTokenVerifier
	endSession string
}

// maxFlows is the number of log-ins in progress the default flow store
// keeps: past it, starting one forgets the oldest. A flood of log-ins
// started can then end an honest one early, never let a forged one in.
const maxFlows = 10_000

// Plugin returns the plugin that logs browsers in through the provider
// c names, into the session of type T of the context registering it
// (plugins/session, registered there or in an ancestor). logIn makes the
// session's value of the verified identity, or refuses it with an error
// (an *httpx.Error chooses the answer; any other is a 500).
//
// It adds three routes to its context: GET LoginPath, the callback (the
// path of c.RedirectURL) and POST LogoutPath. Nothing reaches the
// provider before the first log-in, so a server starts while its
// provider is down, and GET LoginPath answers 503 until it is reached.
// An invalid Client or option makes Register (and Ready) fail with a
// *app.PluginError naming oidc.
func Plugin[T any](c Client, logIn func(ctx context.Context, id *Identity) (T, error), opts ...Option) *app.Plugin {
	p := &plugin{c: c, config: config{
		scopes: []string{"openid", "profile", "email"}, loginPath: "/login/oidc", logoutPath: "/logout/oidc",
		afterLogin: "/", afterLogout: "/", ttl: 10 * time.Minute, flowCookie: "oidc_flow",
		client: &http.Client{Timeout: 10 * time.Second}, now: time.Now,
	}}
	for _, o := range opts {
		o(&p.config)
	}
	if p.flows == nil {
		p.flows = session.NewMemoryStoreOf(maxFlows)
	}
	err := p.check()
	if err == nil {
		err = p.checkClient(logIn != nil, reflect.TypeFor[T]())
	}
	// The routes are how a browser gets in and out: open to anyone
	// (app.Public), so that a context's RequireAuth policy passes them.
	return app.Describe(func(s *app.Server) error {
		if err := app.Get(s, p.loginPath, p.login, app.Public()); err != nil {
			return err
		}
		if err := app.Get(s, p.callbackPath, callback(p, logIn), app.Status(http.StatusSeeOther), app.Public()); err != nil {
			return err
		}
		return app.Post(s, p.logoutPath, logout[T](p), app.Public())
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return err }))
}

// checkClient checks the registration, and sets the callback's path.
func (p *plugin) checkClient(hasLogIn bool, t reflect.Type) error {
	if !hasLogIn {
		return errors.New("oidc.Plugin: nil log-in function")
	}
	if p.idTokenType != nil && p.idTokenType != t {
		return fmt.Errorf("oidc.EndSession takes a function of %v, the session's type, not of %v", t, p.idTokenType)
	}
	iss, err := url.Parse(p.c.Issuer)
	if err != nil || (iss.Scheme != "https" && iss.Scheme != "http") || iss.Host == "" {
		return fmt.Errorf("oidc.Client.Issuer must be an absolute http or https URL, not %q", p.c.Issuer)
	}
	if p.c.ID == "" {
		return errors.New("oidc.Client.ID is empty")
	}
	u, err := url.Parse(p.c.RedirectURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("oidc.Client.RedirectURL must be an absolute http or https URL without a query, not %q", p.c.RedirectURL)
	}
	p.callbackPath = u.EscapedPath()
	if p.callbackPath == "" {
		p.callbackPath = "/"
	}
	return nil
}

// discover reads the provider's discovery document once it answers:
// after a failure, the next try waits a second, so that a provider down
// is not asked once per request.
func (p *plugin) discover(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.disc != nil {
		return p.disc, nil
	}
	if now := p.now(); now.Sub(p.failedAt) < time.Second {
		return nil, errors.New("the identity provider did not answer a moment ago")
	}
	pr, err := gooidc.NewProvider(gooidc.ClientContext(ctx, p.client), p.c.Issuer)
	if err != nil {
		p.failedAt = p.now()
		return nil, err
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	_ = pr.Claims(&extra) // a document without it: local log-out
	d := &discovered{
		oauth: oauth2.Config{
			ClientID: p.c.ID, ClientSecret: p.c.Secret, RedirectURL: p.c.RedirectURL,
			Endpoint: pr.Endpoint(), Scopes: p.scopes,
		},
		verifier: pr.Verifier(&gooidc.Config{ClientID: p.c.ID, Now: p.now}),
	}
	if e, err := url.Parse(extra.EndSession); err == nil && (e.Scheme == "https" || e.Scheme == "http") && e.Host != "" {
		d.endSession = extra.EndSession
	}
	p.disc = d
	return d, nil
}

type loginIn struct {
	app.In
	Req   *httpx.Request
	Reply *httpx.Reply
}

// login starts a log-in: a new flow bound to the browser by its cookie,
// and a redirect to the provider's authorization endpoint.
func (p *plugin) login(ctx context.Context, in loginIn) (app.Redirect, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return app.Redirect{}, &httpx.Error{StatusCode: 503, Message: "the identity provider is unavailable", Err: err}
	}
	f, c, err := p.start(ctx)
	if err != nil {
		return app.Redirect{}, fmt.Errorf("keeping the log-in: %w", err)
	}
	h := in.Reply.Header()
	h.Add("Set-Cookie", c.String())
	h.Set("Cache-Control", "no-store")
	loc := d.oauth.AuthCodeURL(f.State, gooidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return app.Redirect{Location: loc, External: true}, nil
}

type callbackIn[T any] struct {
	app.In
	Req     *httpx.Request
	Reply   *httpx.Reply
	Session *session.Session[T]
}

// refuse is the answer to a refused callback; the log gets the reason,
// cut to maxReason bytes: it may hold the provider's answer (an error
// of the token endpoint quotes its body), or an attacker's text.
func refuse(req *httpx.Request, status int, code, message string, cause error) error {
	reason := ""
	if cause != nil {
		reason = cause.Error()
		if len(reason) > maxReason {
			reason = reason[:maxReason] + "…"
		}
	}
	req.Log().Info("oidc log-in refused", zap.String("code", code), zap.String("reason", reason))
	return &httpx.Error{StatusCode: status, Code: code, Message: message, Err: ErrLogin}
}

// maxReason bounds the reason a refusal logs.
const maxReason = 256

// callback ends a log-in: the flow of the browser's cookie, taken once,
// its state checked, the code exchanged with the PKCE verifier, the ID
// token verified with its nonce, and a new session.
func callback[T any](p *plugin, logIn func(context.Context, *Identity) (T, error)) func(context.Context, callbackIn[T]) (app.Redirect, error) {
	return func(ctx context.Context, in callbackIn[T]) (app.Redirect, error) {
		req := in.Req
		in.Reply.Header().Add("Set-Cookie", p.expired())
		f, err := p.take(req)
		if errors.Is(err, errNoFlow) {
			return app.Redirect{}, refuse(req, 403, CodeState, "No log-in in progress in this browser matches this answer", err)
		}
		if err != nil {
			return app.Redirect{}, fmt.Errorf("reading the log-in in progress: %w", err)
		}
		q := req.Raw().URL.Query()
		if !same(q.Get("state"), f.State) {
			return app.Redirect{}, refuse(req, 403, CodeState, "No log-in in progress in this browser matches this answer", errors.New("another state"))
		}
		if q.Has("error") {
			// Never echoed: the provider's words (or an attacker's) stay in
			// the log, bounded.
			return app.Redirect{}, refuse(req, 403, CodeDenied, "The identity provider did not log you in", errors.New(q.Get("error")))
		}
		code := q.Get("code")
		if code == "" {
			return app.Redirect{}, refuse(req, 400, CodeToken, "The answer has no authorization code", nil)
		}
		d, err := p.discover(ctx)
		if err != nil {
			return app.Redirect{}, &httpx.Error{StatusCode: 503, Message: "the identity provider is unavailable", Err: err}
		}
		pctx := gooidc.ClientContext(ctx, p.client)
		tok, err := d.oauth.Exchange(pctx, code, oauth2.VerifierOption(f.Verifier))
		if err != nil {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The identity provider did not accept the log-in", err)
		}
		raw, _ := tok.Extra("id_token").(string)
		if raw == "" {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The identity provider sent no ID token", nil)
		}
		idt, err := d.verifier.Verify(pctx, raw)
		if err != nil {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The ID token is not valid", err)
		}
		if !same(idt.Nonce, f.Nonce) {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The ID token is not valid", errors.New("another nonce"))
		}
		var claims struct {
			PreferredUsername string `json:"preferred_username"`
			Email             string `json:"email"`
			EmailVerified     bool   `json:"email_verified"`
		}
		if err := idt.Claims(&claims); err != nil {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The ID token is not valid", err)
		}
		id := &Identity{
			Subject: idt.Subject, PreferredUsername: claims.PreferredUsername,
			Email: claims.Email, EmailVerified: claims.EmailVerified, IDToken: raw, token: idt,
		}
		if id.Subject == "" {
			return app.Redirect{}, refuse(req, 401, CodeToken, "The ID token is not valid", errors.New("no sub"))
		}
		v, err := logIn(ctx, id)
		if err != nil {
			return app.Redirect{}, err
		}
		in.Session.Regenerate() // a new session id: no fixation
		in.Session.Set(v)
		return app.Redirect{Location: p.afterLogin}, nil
	}
}

// expired is the Set-Cookie value that clears the flow cookie.
func (p *plugin) expired() string {
	c := p.cookie("") // #nosec G124 -- made by plugin.cookie
	c.MaxAge = -1
	return c.String()
}

type logoutIn[T any] struct {
	app.In
	Session *session.Session[T]
}

// logout ends the session, and sends the browser to the provider's
// end_session_endpoint with EndSession, to AfterLogout otherwise.
func logout[T any](p *plugin) func(context.Context, logoutIn[T]) (app.Redirect, error) {
	return func(ctx context.Context, in logoutIn[T]) (app.Redirect, error) {
		v, ok := in.Session.Get()
		in.Session.Destroy()
		if !ok || p.idToken == nil {
			return app.Redirect{Location: p.afterLogout}, nil
		}
		hint := p.idToken(v)
		d, err := p.discover(ctx)
		if err != nil || d.endSession == "" || hint == "" {
			return app.Redirect{Location: p.afterLogout}, nil // logged out here, at least
		}
		end, _ := url.Parse(d.endSession)
		base, _ := url.Parse(p.c.RedirectURL)
		ref, _ := url.Parse(p.afterLogout)
		back := base.ResolveReference(ref)
		q := end.Query()
		q.Set("id_token_hint", hint)
		q.Set("client_id", p.c.ID)
		q.Set("post_logout_redirect_uri", back.String())
		end.RawQuery = q.Encode()
		return app.Redirect{Location: end.String(), External: true}, nil
	}
}
