// Package routepath writes Burrow's route paths in the brace syntax that
// net/http's ServeMux patterns and OpenAPI path templates share.
package routepath

import "strings"

// Braced writes path with its parameters in braces: ":id" is "{id}", and
// the wildcard "*" is "{" + wildcard + "}" ("*..." for ServeMux,
// "wildcard" for OpenAPI).
func Braced(path, wildcard string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case s == "*":
			segs[i] = "{" + wildcard + "}"
		case strings.HasPrefix(s, ":"):
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}
