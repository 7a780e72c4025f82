// Package urlpath reads percent-encoded URL paths in place. Burrow routes
// on the decoded text of each path segment; these functions let the
// router and the server compare and measure that text without decoding it
// into a new string.
//
// Every function but Valid expects a path that Valid accepts.
package urlpath

import "strings"

// Valid reports whether every '%' in s starts an escape of two hex digits.
func Valid(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

// Len is the length of s decoded.
func Len(s string) int { return len(s) - 2*strings.Count(s, "%") }

// First and Last are the first and last bytes of s decoded; s is not
// empty.
func First(s string) byte {
	if s[0] == '%' {
		return unhex(s[1])<<4 | unhex(s[2])
	}
	return s[0]
}

// Last: see First. The escape a '%' starts cannot hold another '%', so a
// '%' three bytes from the end always starts the last escape.
func Last(s string) byte {
	if n := len(s); n >= 3 && s[n-3] == '%' {
		return unhex(s[n-2])<<4 | unhex(s[n-1])
	}
	return s[len(s)-1]
}

// HasPrefix reports whether s decoded starts with prefix, and how many
// bytes of s the prefix took. A '/' in prefix matches only a '/' of s,
// never an escaped one (%2F): an escaped slash is data inside a segment,
// not a separator.
func HasPrefix(s, prefix string) (n int, ok bool) {
	i, j := compare(s, prefix, false)
	return i, j == len(prefix)
}

// Decodes reports whether s decodes to exactly t, an escaped slash
// counting as '/' (url.PathUnescape's decoding): whether s is an encoding
// of t at all.
func Decodes(s, t string) bool {
	i, j := compare(s, t, true)
	return i == len(s) && j == len(t)
}

// compare walks s, decoding, and t while they agree, and returns how far
// it got in each. An escaped slash in s matches a '/' in t only when
// slashes is set.
func compare(s, t string, slashes bool) (i, j int) {
	for i < len(s) && j < len(t) {
		c, w := s[i], 1
		if c == '%' {
			c, w = unhex(s[i+1])<<4|unhex(s[i+2]), 3
			if c == '/' && !slashes {
				break
			}
		}
		if c != t[j] {
			break
		}
		i, j = i+w, j+1
	}
	return i, j
}

// Decode writes s decoded to b.
func Decode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		b.WriteByte(c)
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
