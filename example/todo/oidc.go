package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

// oidcConfig is browser log-in through an identity provider
// (-oidc-issuer, -oidc-client-id, -oidc-client-secret, -public-url,
// checked with the other flags): GET /login/oidc sends the browser to
// the provider, whose answer comes back to -public-url +
// /login/oidc/callback and ends in the same session as POST /session's.
// No issuer: no such routes.
type oidcConfig struct {
	issuer, clientID, clientSecret, publicURL string
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
