// Package negotiate chooses a content coding from a request's
// Accept-Encoding (RFC 9110 §12.5.3), for the compression and static
// file plugins: by q-value, ties broken by the server's order.
package negotiate

import "strings"

// MaxCodings bounds how many codings Encoding chooses among.
const MaxCodings = 8

// Encoding returns the index in offered (the server's codings, preferred
// first, lower case, at most MaxCodings) of the coding the request's
// Accept-Encoding header lines prefer, or -1 for none: no header, only
// refusals (q=0), "identity" alone, or codings the server does not
// offer. A coding the header does not name takes the q-value of "*",
// when the header has one; "x-gzip" is "gzip". A q-value that is not a
// number from 0 to 1 with at most three decimals refuses its coding, as
// the safe reading of a header a client got wrong.
func Encoding(header []string, offered []string) int {
	if len(header) == 0 || len(offered) > MaxCodings {
		return -1
	}
	var q [MaxCodings]int // per offered coding, in thousandths; -1 unnamed
	for i := range offered {
		q[i] = -1
	}
	star := -1
	for _, line := range header {
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ",")
			name, params, _ := strings.Cut(part, ";")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			v := QValue(params)
			if name == "*" {
				star = v
				continue
			}
			if strings.EqualFold(name, "x-gzip") {
				name = "gzip"
			}
			for i, o := range offered {
				if strings.EqualFold(name, o) {
					q[i] = v
				}
			}
		}
	}
	best, bestQ := -1, 0
	for i := range offered {
		v := q[i]
		if v < 0 {
			v = star
		}
		if v > bestQ {
			best, bestQ = i, v
		}
	}
	return best
}

// QValue reads the "q" parameter among an element's params (";q=0.5",
// what follows the first ";"), in thousandths: 1000 when absent, 0 when
// malformed.
func QValue(params string) int {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		return parseQ(strings.TrimSpace(v))
	}
	return 1000
}

// parseQ parses RFC 9110's qvalue: "0" or "1", optionally followed by
// "." and up to three digits (1 allows only zeros).
func parseQ(s string) int {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0
	}
	n := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return n
	}
	if s[1] != '.' || len(s) > 5 {
		return 0
	}
	scale := 100
	for i := 2; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0
		}
		n += int(c-'0') * scale
		scale /= 10
	}
	if n > 1000 {
		return 0
	}
	return n
}
