package static

import (
	"path"
	"strings"
)

// HashedName is the default rule for an immutable name: the file's base
// name, without its extensions, ends in a "-" or "." and a hash of 8 to
// 64 letters, digits or "_" that holds a digit, or both cases with an
// upper-case letter past its first character — what Vite
// ("index-BX3kq9aF.js"), webpack ("main.3f2a1b9c.js") and esbuild
// ("app-5XKEG3TS.js") write, and not an ordinary word ("bootstrap-material.css",
// "Readme-Overview.md"). A name the rule gets wrong is cached for a year:
// when in doubt, give Immutable a rule of your build's own.
func HashedName(name string) bool {
	base := path.Base(name)
	if i := strings.IndexByte(base, '.'); i > 0 {
		// "main.3f2a1b9c.js": the hash may be the part before the last
		// extension; "index-BX3kq9aF.js": the end of the first part.
		parts := strings.Split(base, ".")
		for _, p := range parts[1 : len(parts)-1] {
			if hashLike(p) {
				return true
			}
		}
		base = parts[0]
	}
	if i := strings.LastIndexByte(base, '-'); i >= 0 {
		return hashLike(base[i+1:])
	}
	return false
}

func hashLike(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	var digit, lower, upperInside bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upperInside = upperInside || i > 0
		case c == '_':
		default:
			return false
		}
	}
	return digit || lower && upperInside
}
