package app

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/burrow-go/burrow/internal/clientip"
	"github.com/burrow-go/burrow/internal/errkind"
)

// WithTrustedProxies names the proxies whose forwarding header the
// server believes: CIDR prefixes ("10.0.0.0/8"), single addresses
// ("127.0.0.1", "::1"), or "loopback", "linklocal" and "uniquelocal" (the
// private ranges). A request from one of them has as its client address
// (httpx.Request.ClientIP, and the access log's clientIp) the right-most
// address of the header that none of them holds; a request from any
// other peer has the peer's, whatever headers it sends. Default: none, so
// no header is believed. An entry that is none of these makes Ready fail.
// Several calls add up.
//
// Trust only the proxies in front of the server, and only a header they
// write: X-Forwarded-For, unless WithClientIPHeader says Forwarded.
func WithTrustedProxies(cidrs ...string) Option {
	return func(c *config) { c.trustedProxies = append(c.trustedProxies, cidrs...) }
}

// WithClientIPHeader names the forwarding header trusted proxies write:
// "X-Forwarded-For" (the default, which nginx, HAProxy, Envoy and the
// clouds' load balancers write) or "Forwarded" (RFC 7239's for=). Only
// that one is read: a proxy that appends to one passes the other on as
// the client wrote it, so reading both would let a client choose its
// address. Any other name makes Ready fail.
func WithClientIPHeader(name string) Option { return func(c *config) { c.clientIPHeader = name } }

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
	if c, _ := r.Context().Value(callKey{}).(*call); c != nil {
		return c.x.ClientIP(r)
	}
	return clientip.Peer(r.RemoteAddr)
}
