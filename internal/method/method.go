// Package method holds the one rule for an HTTP method Burrow routes on,
// shared by app's Route and httpx's router so that a method is refused in
// the same words wherever it comes from.
package method

import (
	"strings"

	"github.com/burrow-go/burrow/internal/token"
)

// Any is httpx.AnyMethod, the router's method that answers every method.
const Any = "*"

// Valid reports whether m is a method a route may have: Any, or an RFC
// 9110 token (§5.6.2) that starts with an upper-case letter and holds no
// lower-case one. Methods are case-sensitive and every registered one is
// upper-case, so "get" is a typo that would never match a client's GET;
// a token starting with a digit or a symbol ("123", "-GET") is no
// method anyone sends.
func Valid(m string) bool {
	if m == Any {
		return true
	}
	// token.Valid has ruled out anything but ASCII, which ToUpper returns
	// as it is when it holds no lower-case letter.
	return m != "" && 'A' <= m[0] && m[0] <= 'Z' && token.Valid(m) && strings.ToUpper(m) == m
}
