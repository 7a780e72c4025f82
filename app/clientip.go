package app

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/burrow-go/burrow/internal/clientip"
	"github.com/burrow-go/burrow/internal/errkind"
)

// newClientIP is the function requests find their client address with,
// nil when no proxy is trusted (the peer's address is the client's).
func newClientIP(c *config) (func(*http.Request) netip.Addr, error) {
	header := clientip.XForwardedFor
	switch {
	case c.clientIPHeader == "" || strings.EqualFold(c.clientIPHeader, "X-Forwarded-For"):
	case strings.EqualFold(c.clientIPHeader, "Forwarded"):
		header = clientip.Forwarded
	default:
		return nil, errkind.New(ErrInvalidOption, "app.WithClientIPHeader was given %q, which is neither X-Forwarded-For nor Forwarded", c.clientIPHeader)
	}
	if len(c.trustedProxies) == 0 {
		return nil, nil
	}
	r, err := clientip.Parse(header, c.trustedProxies...)
	if err != nil {
		return nil, errkind.New(ErrInvalidOption, "app.WithTrustedProxies was given an %w", err)
	}
	return r.Client, nil
}

// ClientIP is the client address of r as a middleware sees it (Use): what
// httpx.Request.ClientIP says in a handler, so a middleware (a rate
// limit) keys on the same address. For a request that is not one of a
// Burrow server's, the address of its RemoteAddr.
func ClientIP(r *http.Request) netip.Addr {
	if c, _ := r.Context().Value(callKey{}).(*call); c != nil && c.x != nil {
		return c.x.ClientIP(r)
	}
	return clientip.Peer(r.RemoteAddr)
}
