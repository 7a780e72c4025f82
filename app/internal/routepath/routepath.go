// Package routepath reads Burrow's route paths: which segments are
// parameters, and the brace syntax that net/http's ServeMux patterns and
// OpenAPI path templates share.
package routepath

import "strings"

// Wildcard is the name Param gives the trailing "*" segment, as the
// router names its parameter.
const Wildcard = "*"

// Param reports which parameter the path segment seg is: "id" for
// ":id", Wildcard for "*"; ok is false for a literal segment.
func Param(seg string) (name string, ok bool) {
	switch {
	case seg == "*":
		return Wildcard, true
	case strings.HasPrefix(seg, ":"):
		return seg[1:], true
	}
	return "", false
}

// Braced writes path with its parameters in braces: ":id" is "{id}", and
// the wildcard "*" is "{" + wildcard + "}" ("*..." for ServeMux,
// "wildcard" for OpenAPI).
func Braced(path, wildcard string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if name, ok := Param(s); ok {
			if name == Wildcard {
				name = wildcard
			}
			segs[i] = "{" + name + "}"
		}
	}
	return strings.Join(segs, "/")
}
