package oidc

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/burrow-go/burrow/plugins/session"
)

// Option configures the plugin.
type Option func(*config)

type config struct {
	scopes      []string
	loginPath   string
	logoutPath  string
	afterLogin  string
	afterLogout string
	flows       session.Store
	ttl         time.Duration
	flowCookie  string
	insecure    bool
	client      *http.Client
	idToken     func(any) string // nil: log-out is local only
	idTokenType reflect.Type
	now         func() time.Time
	err         error
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Scopes sets the scopes asked for (default "openid profile email");
// "openid" is always asked for.
func Scopes(scopes ...string) Option {
	return func(c *config) {
		c.scopes = []string{"openid"}
		for _, s := range scopes {
			if s != "openid" {
				c.scopes = append(c.scopes, s)
			}
		}
	}
}

// LoginPath sets the route that starts a log-in (default "/login/oidc",
// GET): a link or a button of the log-in page points at it.
func LoginPath(path string) Option { return func(c *config) { c.loginPath = path } }

// LogoutPath sets the log-out route (default "/logout/oidc", POST: a
// form's button, so that another site cannot log the user out with an
// image).
func LogoutPath(path string) Option { return func(c *config) { c.logoutPath = path } }

// AfterLogin sets the path of this site a successful log-in redirects
// to (default "/").
func AfterLogin(path string) Option { return func(c *config) { c.afterLogin = path } }

// AfterLogout sets the path of this site a log-out ends on (default
// "/"); with EndSession, the provider sends the browser back there, at
// the origin of the Client's RedirectURL, which the provider must know
// as a post-logout redirect URI.
func AfterLogout(path string) Option { return func(c *config) { c.afterLogout = path } }

// EndSession makes the log-out end the user's session at the provider
// too (OpenID Connect RP-Initiated Logout) when the provider's discovery
// document has an end_session_endpoint: the browser is sent there with
// the ID token of the session as id_token_hint. idToken returns the ID
// token the log-in hook kept in the session's value (Identity.IDToken);
// T is the plugin's session type.
func EndSession[T any](idToken func(T) string) Option {
	return func(c *config) {
		if idToken == nil {
			c.fail(errors.New("oidc.EndSession: nil function"))
			return
		}
		c.idTokenType = reflect.TypeFor[T]()
		c.idToken = func(v any) string {
			t, _ := v.(T)
			return idToken(t)
		}
	}
}

// FlowStore keeps the log-ins in progress (default a MemoryStore of
// 10,000 flows): a server-side store, so that each callback is accepted
// once. A service of several instances gives them a shared store (the
// one its sessions use, Redis). The cookie store cannot forget a flow,
// so it cannot refuse a replayed callback: do not use it here.
func FlowStore(store session.Store) Option {
	return func(c *config) {
		if store == nil {
			c.fail(errors.New("oidc.FlowStore: nil store"))
			return
		}
		c.flows = store
	}
}

// FlowTimeout sets how long a log-in may take, from the redirect to the
// provider to the callback (default 10 minutes).
func FlowTimeout(d time.Duration) Option { return func(c *config) { c.ttl = d } }

// FlowCookie names the cookie binding a log-in in progress to its
// browser (default "oidc_flow").
func FlowCookie(name string) Option { return func(c *config) { c.flowCookie = name } }

// Insecure lets the flow cookie travel over plain HTTP, as
// session.Insecure does the session's.
func Insecure() Option { return func(c *config) { c.insecure = true } }

// HTTPClient sets the client that talks to the provider (discovery,
// keys, the code exchange); the default gives up after 10 seconds.
func HTTPClient(client *http.Client) Option {
	return func(c *config) {
		if client == nil {
			c.fail(errors.New("oidc.HTTPClient: nil client"))
			return
		}
		c.client = client
	}
}

// clock replaces time.Now, for tests.
func clock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// check reports the first invalid option.
func (c *config) check() error {
	if c.err != nil {
		return c.err
	}
	for name, p := range map[string]string{
		"oidc.LoginPath": c.loginPath, "oidc.LogoutPath": c.logoutPath,
		"oidc.AfterLogin": c.afterLogin, "oidc.AfterLogout": c.afterLogout,
	} {
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
			return fmt.Errorf("%s takes a path of this site, beginning with a single /, not %q", name, p)
		}
	}
	if c.ttl <= 0 {
		return fmt.Errorf("oidc.FlowTimeout takes a positive duration, not %v", c.ttl)
	}
	if c.flowCookie == "" || strings.ContainsAny(c.flowCookie, " \t\r\n;,=\"") {
		return fmt.Errorf("oidc.FlowCookie: invalid cookie name %q", c.flowCookie)
	}
	return nil
}
