// Package etag makes and compares entity tags (RFC 9110 §8.8.3) and
// evaluates the lists of them that If-Match and If-None-Match carry.
package etag

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Of is the strong tag of body: the first 128 bits of its SHA-256, in
// unpadded base64url, quoted. A collision-resistant hash, so that no
// client can make a body whose tag matches another's (a cache or an
// If-Match would then take one for the other); SHA-256 is
// hardware-accelerated where Go runs, and Sum256 does not allocate.
func Of(body []byte) string {
	sum := sha256.Sum256(body)
	var b [2 + 22]byte
	b[0] = '"'
	base64.RawURLEncoding.Encode(b[1:23], sum[:16])
	b[23] = '"'
	return string(b[:])
}

// Opaque reports whether s may be the opaque part of a tag, the text
// between its quotes: etagc is %x21 / %x23-7E / obs-text.
func Opaque(s string) bool {
	for i := range len(s) {
		c := s[i]
		if c < 0x21 || c == '"' || c == 0x7f {
			return false
		}
	}
	return true
}

// split returns tag's opaque part with its quotes, and whether tag is
// weak (W/"…").
func split(tag string) (opaque string, weak bool) {
	if strings.HasPrefix(tag, "W/") {
		return tag[2:], true
	}
	return tag, false
}

// next reads the first entity tag of list, a comma-separated field
// value, and returns it and the rest; ok is false when list holds no
// more tags or a malformed one (the rest is then not read: a list that
// does not parse matches nothing, as if absent would be wrong for
// If-Match, and is harmless for If-None-Match, which then answers 200).
func next(list string) (tag, rest string, ok bool) {
	list = strings.TrimLeft(list, " \t,")
	if list == "" {
		return "", "", false
	}
	i := 0
	if strings.HasPrefix(list, "W/") {
		i = 2
	}
	if i >= len(list) || list[i] != '"' {
		return "", "", false
	}
	end := strings.IndexByte(list[i+1:], '"')
	if end < 0 {
		return "", "", false
	}
	end += i + 2
	tag, rest = list[:end], list[end:]
	if !Opaque(tag[i+1 : end-1]) {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	if rest != "" && rest[0] != ',' {
		return "", "", false
	}
	return tag, rest, true
}

// Star reports whether lines, a header's field lines, are the single
// member "*".
func Star(lines []string) bool {
	return len(lines) == 1 && strings.TrimSpace(lines[0]) == "*"
}

// MatchWeak reports whether one of the tags of lines (If-None-Match)
// matches tag by weak comparison: their opaque parts are equal, whether
// either is weak or not. "*" matches any tag.
func MatchWeak(lines []string, tag string) bool {
	if Star(lines) {
		return true
	}
	want, _ := split(tag)
	return match(lines, func(t string) bool {
		o, _ := split(t)
		return o == want
	})
}

// MatchStrong reports whether one of the tags of lines (If-Match)
// matches tag by strong comparison: both are strong and equal. "*" is
// for the caller to test (it matches a resource that exists).
func MatchStrong(lines []string, tag string) bool {
	if strings.HasPrefix(tag, "W/") {
		return false
	}
	return match(lines, func(t string) bool { return t == tag })
}

func match(lines []string, eq func(string) bool) bool {
	for _, line := range lines {
		for {
			t, rest, ok := next(line)
			if !ok {
				break
			}
			if eq(t) {
				return true
			}
			line = rest
		}
	}
	return false
}
