// Package token holds RFC 9110's token grammar (§5.6.2), which names
// methods, auth-schemes and header fields: one definition for the
// packages that check a name a user gives before it goes on the wire.
package token

// Valid reports whether s is a token: one or more tchars.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !Char(s[i]) {
			return false
		}
	}
	return true
}

// Char reports whether c is a tchar: an ASCII letter or digit, or one of
// !#$%&'*+-.^_`|~.
func Char(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
