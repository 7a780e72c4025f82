package jwt

import (
	"strings"

	"github.com/burrow-go/burrow/app"
)

// rule is what Scopes gives a route: the scopes its token must hold.
type rule struct {
	scopes    []string
	challenge []string // the route's 403 WWW-Authenticate value, made at Ready
}

// String describes the rule for PrintRoutes.
func (r *rule) String() string { return "scopes " + strings.Join(r.scopes, " ") }

// Scopes requires, of a route's requests, a token granted every one of
// scopes; a token lacking one is answered 403 with error="insufficient_scope"
// and the scopes required. Ready fails for a route given it where no JWT
// plugin guards it (app.ErrUnreadConfig), and for a scope that is not an
// RFC 6749 scope token.
func Scopes(scopes ...string) app.RouteOption {
	return app.WithConfig(&rule{scopes: append([]string(nil), scopes...)})
}

// SecurityScopes lists the rule's scopes in the route's description,
// with the plugin's scheme (app.ScopedSecurity).
func (r *rule) SecurityScopes() (string, []string) { return SchemeName, r.scopes }
