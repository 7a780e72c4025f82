package httpx

import (
	"net/http"
	"net/netip"

	"github.com/burrow-go/burrow/internal/clientip"
)

// ClientIP is the client address of r by the exchange's trusted proxies
// (SetClientIP), as Request.ClientIP finds it, for code that has the
// *http.Request and not yet the Request: a middleware.
func (x *Exchange) ClientIP(r *http.Request) netip.Addr {
	if x.state.clientIP == nil {
		return clientip.Peer(r.RemoteAddr)
	}
	return x.state.clientIP(r)
}
