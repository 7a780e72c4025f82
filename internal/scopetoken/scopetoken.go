// Package scopetoken checks the scopes routes require (RFC 6749 §3.3)
// and writes the challenge of a request lacking them (RFC 6750 §3), for
// the plugins that enforce scopes per route (bearer's API keys, JWT
// access tokens).
package scopetoken

import (
	"fmt"
	"slices"
	"strings"
)

// Check accepts a scope-token: one or more printable ASCII characters
// but space, '"' and '\\'. The challenge quotes scopes, so these are
// also what keeps its header well-formed. option names the option for
// the error ("jwt.Scopes").
func Check(option string, scopes []string) error {
	if len(scopes) == 0 {
		return fmt.Errorf("%s: no scope given", option)
	}
	for _, s := range scopes {
		if s == "" {
			return fmt.Errorf("%s: empty scope", option)
		}
		for i := range len(s) {
			if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
				return fmt.Errorf("%s: invalid scope %q", option, s)
			}
		}
	}
	return nil
}

// All reports whether granted holds every scope of want.
func All(granted, want []string) bool {
	for _, w := range want {
		if !slices.Contains(granted, w) {
			return false
		}
	}
	return true
}

// Challenge is the WWW-Authenticate value of a request of auth-scheme
// scheme lacking want: error="insufficient_scope" and the scopes.
func Challenge(scheme string, want []string) []string {
	return []string{scheme + ` error="insufficient_scope", scope="` + strings.Join(want, " ") + `"`}
}
