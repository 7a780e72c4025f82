// Package echo cuts the client's text that an answer or a log line
// repeats: a request target in a 404, a map key in a validation
// failure's path. Repeated whole, a long one would make every answer to
// it as large as the client likes.
package echo

import "unicode/utf8"

// Cut returns s when it is at most n bytes long, and otherwise its first
// n bytes, less a UTF-8 sequence the cut would split (text that is not
// UTF-8 loses up to utf8.UTFMax bytes more), followed by "…".
func Cut[S ~string | ~[]byte](s S, n int) string {
	if len(s) <= n {
		return string(s)
	}
	m := n
	for m > max(n-utf8.UTFMax, 0) && !utf8.RuneStart(s[m]) {
		m--
	}
	return string(s[:m]) + "…"
}
