// Package csrf is Burrow's cross-site request forgery protection: an
// onRequest hook that refuses a state-changing request a browser sent
// from another origin, by the rule of net/http's CrossOriginProtection
// (Fetch metadata, then Origin against Host).
//
// A request passes when its method is safe (GET, HEAD, OPTIONS); when
// Sec-Fetch-Site is same-origin or none; when it has neither
// Sec-Fetch-Site nor Origin (not a browser, or a browser too old to
// send either, which never sends cross-origin requests without them);
// when Origin's host is the request's Host; or when Origin is one of the
// TrustedOrigins. Anything else is answered 403 in Burrow's error body
// with code FST_CSRF_CROSS_ORIGIN, before any later hook or the body is
// read.
//
// Only requests that carry ambient credentials (cookies, HTTP basic
// auth) can be forged, so the plugin belongs in the contexts that
// authenticate by cookie, and nowhere else: the plugin is wrapped, and
// guards the context that registers it and its descendants. A context
// that accepts both a session cookie and a bearer token passes
// bearer-authenticated requests with Exempt.
package csrf

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// PluginName is the name the plugin registers under.
const PluginName = "csrf"

// Code is the error code of a refused request.
const Code = "FST_CSRF_CROSS_ORIGIN"

// ErrCrossOrigin is the cause of every refusal (errors.Is through the
// *httpx.Error the hook returns).
var ErrCrossOrigin = errors.New("cross-origin request refused")

// Option configures the plugin.
type Option func(*config)

type config struct {
	cop    *http.CrossOriginProtection
	exempt func(*httpx.Request) bool
	err    error
}

// TrustedOrigins lets unsafe requests from these origins through, each
// written scheme://host[:port], as a browser sends Origin
// ("https://admin.example"); anything with a path, query or fragment is
// refused.
func TrustedOrigins(origins ...string) Option {
	return func(c *config) {
		for _, o := range origins {
			if err := c.cop.AddTrustedOrigin(o); err != nil && c.err == nil {
				c.err = fmt.Errorf("csrf.TrustedOrigins: %w", err)
			}
		}
	}
}

// Exempt passes the requests fn accepts without a check: requests that
// carry no ambient credential, such as those with a bearer token and no
// session cookie. fn sees the request before its body is read.
func Exempt(fn func(req *httpx.Request) bool) Option {
	return func(c *config) {
		if fn == nil && c.err == nil {
			c.err = errors.New("csrf.Exempt: nil function")
		}
		c.exempt = fn
	}
}

// Plugin returns the wrapped plugin. An invalid option makes Register
// (and Ready) fail with a *app.PluginError naming csrf.
func Plugin(opts ...Option) *app.Plugin {
	c := &config{cop: http.NewCrossOriginProtection()}
	for _, o := range opts {
		o(c)
	}
	return app.Wrap(func(s *app.Server) error {
		if err := s.DeclareGuard(app.Guard{Kind: app.GuardCSRF}); err != nil {
			return err
		}
		return s.AddHook(app.OnRequest, c.check)
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return c.err }))
}

// refusal is the one answer to a refused request: it names no origin, so
// that the body repeats nothing a client sent.
var refusal = &httpx.Error{
	StatusCode: http.StatusForbidden,
	Code:       Code,
	Message:    "cross-origin request refused",
	Err:        ErrCrossOrigin,
}

func (c *config) check(req *httpx.Request) error {
	switch req.Method() {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if c.exempt != nil && c.exempt(req) {
		return nil
	}
	if c.cop.Check(req.Raw()) != nil {
		return refusal
	}
	return nil
}
