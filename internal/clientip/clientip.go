// Package clientip finds a request's client address behind trusted
// proxies: the right-most address of the forwarding header that no
// trusted proxy holds, the peer's when the peer is not trusted. It
// allocates nothing per request.
package clientip

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ErrInvalidProxy is wrapped by Parse's error for an entry that is
// neither an address, a prefix nor a named range.
var ErrInvalidProxy = errors.New("invalid trusted proxy")

// Header names the forwarding header a Resolver reads.
type Header uint8

const (
	// XForwardedFor is the de facto standard list of addresses
	// ("client, proxy1, proxy2"), written by nginx, HAProxy, Envoy and the
	// clouds' load balancers.
	XForwardedFor Header = iota
	// Forwarded is RFC 7239's header: the for= parameter of each element.
	Forwarded
)

// named are the ranges a trusted-proxy entry may name, as Express's
// proxy-addr names them.
var named = map[string][]netip.Prefix{
	"loopback":    {netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
	"linklocal":   {netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")},
	"uniquelocal": {netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fc00::/7")},
}

// Resolver finds client addresses. Its zero value trusts no proxy: every
// request's client is its peer.
type Resolver struct {
	trusted []netip.Prefix
	header  Header
}

// Parse builds a Resolver trusting entries: CIDR prefixes
// ("10.0.0.0/8"), single addresses ("127.0.0.1", "::1") and the names
// "loopback", "linklocal" and "uniquelocal".
func Parse(header Header, entries ...string) (*Resolver, error) {
	r := &Resolver{header: header}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if ps, ok := named[strings.ToLower(e)]; ok {
			r.trusted = append(r.trusted, ps...)
			continue
		}
		if strings.Contains(e, "/") {
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("%w %q: %w", ErrInvalidProxy, e, err)
			}
			r.trusted = append(r.trusted, unmapPrefix(p.Masked()))
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%w %q: not an address, a prefix (10.0.0.0/8) or one of loopback, linklocal, uniquelocal", ErrInvalidProxy, e)
		}
		a = a.Unmap()
		r.trusted = append(r.trusted, netip.PrefixFrom(a, a.BitLen()))
	}
	return r, nil
}

// unmapPrefix turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104) into
// its IPv4 form, as addresses are unmapped before they are compared.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// Trusts reports whether a is a trusted proxy's address.
func (r *Resolver) Trusts(a netip.Addr) bool {
	if r == nil || !a.IsValid() {
		return false
	}
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Peer is the address of remoteAddr (an http.Request's RemoteAddr,
// "host:port" or a bare address), unmapped and without zone; the zero
// Addr when it is not an IP address (a Unix socket's peer).
func Peer(remoteAddr string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remoteAddr); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	a, _ := netip.ParseAddr(remoteAddr)
	return a.Unmap().WithZone("")
}

// Client is r's client address: the peer's unless the peer is a trusted
// proxy; then the right-most address of the forwarding header that is
// not trusted, the left-most one when all are. A hop the header does not
// give as an address ("unknown", an obfuscated name, garbage) ends the
// walk: the client is the trusted proxy that reported it, as nothing the
// client wrote can be told from what it says. The zero Addr when the
// peer is not an IP address.
func (r *Resolver) Client(req *http.Request) netip.Addr {
	peer := Peer(req.RemoteAddr)
	if !r.Trusts(peer) {
		return peer
	}
	var w walk
	w.trusted = r
	w.result = peer
	switch r.header {
	case Forwarded:
		for _, v := range req.Header.Values("Forwarded") {
			w.forwarded(v)
		}
	default:
		for _, v := range req.Header.Values("X-Forwarded-For") {
			for hop := range strings.SplitSeq(v, ",") {
				a, ok := parseHop(strings.TrimSpace(hop))
				w.hop(a, ok)
			}
		}
	}
	return w.end(peer)
}

// walk reads a header's hops left to right and keeps what a walk from
// the right would answer, so it needs no list of the hops: the hop where
// that walk stops (the last untrusted or malformed one) and the first
// hop after it.
type walk struct {
	trusted *Resolver
	result  netip.Addr
	first   netip.Addr // the left-most hop, when every hop so far is trusted
	stopped bool       // a hop stops the walk from the right
	stop    netip.Addr // that hop, when it is an address
	bad     bool       // that hop is malformed
	after   netip.Addr // the hop after it
	any     bool
}

func (w *walk) hop(a netip.Addr, ok bool) {
	if !w.any {
		w.any, w.first = true, a
	}
	if !ok || !w.trusted.Trusts(a) {
		w.stopped, w.stop, w.bad, w.after = true, a, !ok, netip.Addr{}
		return
	}
	if w.stopped && !w.after.IsValid() {
		w.after = a
	}
}

// end is the client address once every hop is read; peer is the
// trusted proxy that sent the request.
func (w *walk) end(peer netip.Addr) netip.Addr {
	switch {
	case !w.any:
		return peer
	case !w.stopped:
		return w.first // every hop is a trusted proxy: the farthest one
	case !w.bad:
		return w.stop
	case w.after.IsValid():
		return w.after
	default:
		return peer
	}
}

// parseHop reads one hop: an address, possibly bracketed and with a
// port ("203.0.113.7:4711", "[2001:db8::1]:443"), as some proxies write
// them; an IPv4-mapped address is unmapped. The form is told by its shape
// first, so a well-formed hop costs no parse error.
func parseHop(s string) (netip.Addr, bool) {
	if len(s) == 0 || len(s) > 64 {
		return netip.Addr{}, false
	}
	var a netip.Addr
	var err error
	switch {
	case s[0] == '[' && s[len(s)-1] == ']':
		a, err = netip.ParseAddr(s[1 : len(s)-1])
		if err == nil && !a.Is6() {
			return netip.Addr{}, false
		}
	case s[0] == '[' || strings.Count(s, ":") == 1:
		var ap netip.AddrPort
		ap, err = netip.ParseAddrPort(s)
		a = ap.Addr()
	default:
		a, err = netip.ParseAddr(s)
	}
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false // a zone means nothing past the proxy's own link
	}
	return a.Unmap(), true
}

// forwarded reads the hops of one Forwarded header value: elements
// separated by commas, each a list of pairs separated by semicolons,
// values tokens or quoted strings (which may hold commas and
// semicolons). An element without a for= pair, or with one that is not
// an address, is a hop of unknown address; an empty element is none.
//
// A value whose quotes do not close is read with every comma a
// separator: a client that opens a quote must not swallow the element a
// proxy appends to its line (RFC 7239 lets it), which would make that
// proxy the client.
func (w *walk) forwarded(v string) {
	quotes := quotesClose(v)
	var (
		inQuote, escaped bool
		start, elem      int // where the current pair and element begin
		e                element
	)
	for i := 0; i <= len(v); i++ {
		if i < len(v) {
			c := v[i]
			switch {
			case escaped:
				escaped = false
				continue
			case inQuote && c == '\\':
				escaped = true
				continue
			case c == '"':
				inQuote = quotes && !inQuote
				continue
			case inQuote || c != ';' && c != ',':
				continue
			}
		}
		e.pair(v[start:i])
		start = i + 1
		if i == len(v) || v[i] == ',' {
			if strings.TrimSpace(v[elem:i]) != "" {
				w.hop(e.addr, e.found && e.ok)
			}
			e, elem = element{}, i+1
		}
	}
}

// quotesClose reports whether every quoted string of v, a Forwarded
// value, ends before v does.
func quotesClose(v string) bool {
	inQuote, escaped := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case escaped:
			escaped = false
		case inQuote && c == '\\':
			escaped = true
		case c == '"':
			inQuote = !inQuote
		}
	}
	return !inQuote
}

// element is what one Forwarded element says of its for= pair.
type element struct {
	addr      netip.Addr
	found, ok bool
}

func (e *element) pair(p string) {
	k, val, has := strings.Cut(strings.TrimSpace(p), "=")
	if !has || !strings.EqualFold(strings.TrimSpace(k), "for") {
		return
	}
	if e.found {
		e.ok = false // two for= pairs in one element: malformed
		return
	}
	e.found = true
	val = strings.TrimSpace(val)
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
		val = val[1 : len(val)-1]
		if strings.IndexByte(val, '\\') >= 0 {
			return // no address needs an escape
		}
	}
	e.addr, e.ok = parseHop(val)
}
