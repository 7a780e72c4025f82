package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"net/url"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

// oidcConfig is browser log-in through an identity provider
// (-oidc-issuer, -oidc-client-id, -oidc-client-secret, -public-url):
// GET /login/oidc sends the browser to the provider, whose answer comes
// back to -public-url + /login/oidc/callback and ends in the same
// session as POST /session's. None set: no such routes.
type oidcConfig struct {
	issuer, clientID, clientSecret, publicURL string
}

// flags defines the configuration's flags in fs.
func (c *oidcConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.issuer, "oidc-issuer", "", "log browsers in through this OpenID Connect issuer (GET /login/oidc); needs -oidc-client-id and -public-url")
	fs.StringVar(&c.clientID, "oidc-client-id", "", "the client_id registered at -oidc-issuer")
	fs.StringVar(&c.clientSecret, "oidc-client-secret", "", "the client secret registered at -oidc-issuer")
	fs.StringVar(&c.publicURL, "public-url", "", "the service's URL as browsers reach it, https://todo.example: the log-in's redirect URI is this + /login/oidc/callback")
}

// check refuses an incomplete configuration.
func (c *oidcConfig) check() error {
	if c.issuer == "" {
		if c.clientID != "" || c.clientSecret != "" {
			return errors.New("-oidc-client-id and -oidc-client-secret need -oidc-issuer")
		}
		return nil
	}
	var errs []error
	if c.clientID == "" {
		errs = append(errs, errors.New("-oidc-issuer needs -oidc-client-id"))
	}
	u, err := url.Parse(c.publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, errors.New("-oidc-issuer needs -public-url, an absolute http or https URL such as https://todo.example"))
	}
	return errors.Join(errs...)
}

// errNotAUser refuses a log-in through the provider of someone who is
// not one of the configured users.
var errNotAUser = httpx.NewError(http.StatusForbidden, "TODO_UNKNOWN_USER", "you are not a user of this service")

// oidcPlugin serves the log-in through the provider, into the session
// of POST /session: its user is the ID token's preferred_username, or
// its sub when it has none, which must be a configured user's name.
// The log-ins in progress are kept in Redis with -redis, shared by every
// instance; in memory otherwise, apart from the sessions, so that a
// flood of log-ins started cannot push sessions out.
func oidcPlugin(c oidcConfig, a *accounts, sessions session.Store) *app.Plugin {
	opts := []oidc.Option{oidc.FlowCookie("todo_oidc_flow")}
	if _, inMemory := sessions.(*session.MemoryStore); !inMemory {
		opts = append(opts, oidc.FlowStore(sessions))
	}
	client := oidc.Client{
		Issuer: c.issuer, ID: c.clientID, Secret: c.clientSecret,
		RedirectURL: strings.TrimSuffix(c.publicURL, "/") + "/login/oidc/callback",
	}
	return oidc.Plugin(client, func(_ context.Context, id *oidc.Identity) (account, error) {
		name := id.PreferredUsername
		if name == "" {
			name = id.Subject
		}
		i, ok := a.byName[name]
		if !ok {
			return account{}, errNotAUser
		}
		return account{User: name, Key: a.fingerprint(i)}, nil
	}, opts...)
}
