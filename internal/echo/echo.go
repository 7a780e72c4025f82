// Package echo cuts the client's text that an answer or a log line
// repeats: a request target in a 404, a map key in a validation
// failure's path. Repeated whole, a long one would make every answer to
// it as large as the client likes.
package echo

import "unicode/utf8"

// Max is how much of the client's text an error message repeats: a
// request target, a malformed line of a body. The text may be as long as
// the header or body limit allows; repeated whole, it would multiply
// what each client that never reads its answer pins, and what goes to
// logs.
const Max = 1 << 10

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
