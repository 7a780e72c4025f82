package app

import (
	"net/http"
	"strings"
)

// Vary makes the answer to r — the request a middleware was given — name
// the request header name in its Vary header, added as the header is
// written, whatever was set before: a handler's Header().Set("Vary",
// "Accept-Encoding") replaces the whole list, and with it the "Origin"
// that a CORS middleware's answers must keep so that a cache never serves
// one origin's answer to another. A name the header lists already, or
// "Vary: *", is left alone. For a request that went through no
// middleware it does nothing.
func Vary(r *http.Request, name string) {
	c, _ := r.Context().Value(callKey{}).(*call)
	if c == nil || name == "" || listed([]string{c.vary}, name) {
		return
	}
	if c.vary == "" {
		c.vary = name
		return
	}
	c.vary += ", " + name
}

// addVary adds the names c.vary holds to the answer's Vary header, the
// header being about to go.
func (c *call) addVary() {
	h := c.tw.Header()
	for name := range strings.SplitSeq(c.vary, ", ") {
		if v := h["Vary"]; !listed(v, name) {
			h["Vary"] = append(v[:len(v):len(v)], name) // never into the caller's array
		}
	}
}

// listed reports whether the Vary lines vs name name, or "*".
func listed(vs []string, name string) bool {
	for _, v := range vs {
		for tok := range strings.SplitSeq(v, ",") {
			if tok = strings.TrimSpace(tok); tok == "*" || strings.EqualFold(tok, name) {
				return true
			}
		}
	}
	return false
}
