package app

import (
	"net/http"
	"net/netip"

	"github.com/burrow-go/burrow/internal/clientip"
)

// ClientIPOf is the client address of r as a middleware sees it (Use),
// by the server's trusted proxies (WithTrustedProxies): what
// httpx.Request.ClientIP returns for the same request, a 405's included.
// A per-address rate limit, which runs as a middleware to count 405s and
// what authentication refuses, keys on it. For a request that did not
// come through Burrow's middleware it is the peer's address. It allocates
// nothing.
func ClientIPOf(r *http.Request) netip.Addr {
	if c, _ := r.Context().Value(callKey{}).(*call); c != nil && c.x != nil {
		return c.x.ClientIP(r)
	}
	return clientip.Peer(r.RemoteAddr)
}
