package negotiate

import (
	"net/http"
	"strings"
)

var varyValue = []string{"Accept-Encoding"} // shared: net/http only reads it, and cap 1 makes an append copy

// Vary adds Accept-Encoding to h's Vary, unless Vary names it or "*"
// already. Without a Vary, it costs no allocation.
func Vary(h http.Header) {
	v, ok := h["Vary"]
	if !ok {
		h["Vary"] = varyValue
		return
	}
	for _, line := range v {
		for tok := range strings.SplitSeq(line, ",") {
			if tok = strings.TrimSpace(tok); tok == "*" || strings.EqualFold(tok, "Accept-Encoding") {
				return
			}
		}
	}
	h["Vary"] = append(v[:len(v):len(v)], "Accept-Encoding")
}
