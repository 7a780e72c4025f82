package clientip

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func request(peer string, header string, values ...string) *http.Request {
	r := &http.Request{RemoteAddr: peer, Header: http.Header{}}
	for _, v := range values {
		r.Header.Add(header, v)
	}
	return r
}

func TestClient(t *testing.T) {
	t.Parallel()
	xff, err := Parse(XForwardedFor, "10.0.0.0/8", "127.0.0.1", "::1")
	require.NoError(t, err)
	fwd, err := Parse(Forwarded, "10.0.0.0/8", "127.0.0.1")
	require.NoError(t, err)
	cases := []struct {
		name   string
		r      *Resolver
		peer   string
		header string
		values []string
		want   string
	}{
		{"no header", xff, "10.0.0.1:1234", "", nil, "10.0.0.1"},
		{"untrusted peer ignores a forged header", xff, "203.0.113.9:1", "X-Forwarded-For", []string{"1.2.3.4"}, "203.0.113.9"},
		{"one proxy", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"198.51.100.7"}, "198.51.100.7"},
		{"right-most untrusted", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"6.6.6.6, 198.51.100.7, 10.0.0.2"}, "198.51.100.7"},
		{"several header lines read in order", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"6.6.6.6", "198.51.100.7,10.0.0.2"}, "198.51.100.7"},
		{"every hop trusted: the farthest", xff, "127.0.0.1:1", "X-Forwarded-For", []string{"10.1.1.1, 10.0.0.2"}, "10.1.1.1"},
		{"malformed hop: the proxy that reported it", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4, garbage, 10.0.0.2"}, "10.0.0.2"},
		{"malformed last hop: the peer", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4, unknown"}, "10.0.0.1"},
		{"empty hop is malformed", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4,,"}, "10.0.0.1"},
		{"hop with a port", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"198.51.100.7:4711"}, "198.51.100.7"},
		{"IPv6 hop", xff, "[::1]:1", "X-Forwarded-For", []string{"2001:db8::1"}, "2001:db8::1"},
		{"bracketed IPv6 hop with a port", xff, "[::1]:1", "X-Forwarded-For", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"mapped peer is unmapped", xff, "[::ffff:10.0.0.1]:1", "X-Forwarded-For", []string{"198.51.100.7"}, "198.51.100.7"},
		{"mapped hop is unmapped and trusted", xff, "10.0.0.1:1", "X-Forwarded-For", []string{"198.51.100.7, ::ffff:10.0.0.3"}, "198.51.100.7"},
		{"X-Forwarded-For reader ignores Forwarded", xff, "10.0.0.1:1", "Forwarded", []string{"for=1.2.3.4"}, "10.0.0.1"},
		{"Forwarded reader ignores X-Forwarded-For", fwd, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4"}, "10.0.0.1"},
		{"Forwarded for=", fwd, "10.0.0.1:1", "Forwarded", []string{"for=198.51.100.7;proto=https;by=10.0.0.1"}, "198.51.100.7"},
		{"Forwarded quoted IPv6 with port", fwd, "10.0.0.1:1", "Forwarded", []string{`For="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"Forwarded elements right-most untrusted", fwd, "10.0.0.1:1", "Forwarded", []string{"for=6.6.6.6, for=198.51.100.7;by=x, for=10.0.0.2"}, "198.51.100.7"},
		{"Forwarded quoted comma is not a separator", fwd, "10.0.0.1:1", "Forwarded", []string{`for=198.51.100.7;ext="a,for=6.6.6.6"`}, "198.51.100.7"},
		{"Forwarded unknown: the proxy that reported it", fwd, "10.0.0.1:1", "Forwarded", []string{"for=1.2.3.4, for=unknown, for=10.0.0.2"}, "10.0.0.2"},
		{"Forwarded obfuscated", fwd, "10.0.0.1:1", "Forwarded", []string{"for=_hidden"}, "10.0.0.1"},
		{"Forwarded element without for", fwd, "10.0.0.1:1", "Forwarded", []string{"for=1.2.3.4, proto=http"}, "10.0.0.1"},
		{"Forwarded two for pairs", fwd, "10.0.0.1:1", "Forwarded", []string{"for=1.2.3.4;for=5.6.7.8"}, "10.0.0.1"},
		{"Forwarded escape", fwd, "10.0.0.1:1", "Forwarded", []string{`for="1.2.3.\4"`}, "10.0.0.1"},
		{"Forwarded unterminated quote", fwd, "10.0.0.1:1", "Forwarded", []string{`for="1.2.3.4`}, "10.0.0.1"},
		{"Forwarded unterminated quote does not swallow the proxy's element", fwd, "10.0.0.1:1", "Forwarded", []string{`for="198.51.100.9, for=203.0.113.7`}, "203.0.113.7"},
		{"Forwarded unterminated quote after a closed one", fwd, "10.0.0.1:1", "Forwarded", []string{`for="[2001:db8::1]";ext="x, for=203.0.113.7`}, "203.0.113.7"},
		{"Forwarded unterminated quote ends at its line", fwd, "10.0.0.1:1", "Forwarded", []string{`for="198.51.100.9`, "for=203.0.113.7"}, "203.0.113.7"},
		{"no proxies trusted", &Resolver{}, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4"}, "10.0.0.1"},
		{"nil resolver", nil, "10.0.0.1:1", "X-Forwarded-For", []string{"1.2.3.4"}, "10.0.0.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := c.r.Client(request(c.peer, c.header, c.values...))
			assert.Equal(t, c.want, got.String())
		})
	}
}

func TestClientPeerNotAnAddress(t *testing.T) {
	t.Parallel()
	r, err := Parse(XForwardedFor, "loopback")
	require.NoError(t, err)
	assert.False(t, r.Client(request("@", "X-Forwarded-For", "1.2.3.4")).IsValid(), "a Unix socket's peer has no address")
	assert.False(t, r.Client(request("", "")).IsValid())
}

func TestParse(t *testing.T) {
	t.Parallel()
	r, err := Parse(XForwardedFor, " 10.0.0.0/8 ", "192.0.2.1", "2001:db8::/32", "loopback", "LinkLocal", "uniquelocal", "::ffff:198.51.100.0/120")
	require.NoError(t, err)
	for _, a := range []string{"10.9.9.9", "192.0.2.1", "2001:db8::5", "127.0.0.2", "::1", "169.254.1.1", "fe80::1", "172.16.0.1", "192.168.1.1", "fd00::1", "198.51.100.9"} {
		assert.True(t, r.Trusts(netip.MustParseAddr(a)), a)
	}
	for _, a := range []string{"11.0.0.1", "192.0.2.2", "2001:db9::1", "8.8.8.8"} {
		assert.False(t, r.Trusts(netip.MustParseAddr(a)), a)
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "", "fe80::1%eth0", "10.0.0.1/"} {
		_, err := Parse(XForwardedFor, bad)
		require.ErrorIs(t, err, ErrInvalidProxy, bad)
		assert.Contains(t, err.Error(), "invalid trusted proxy")
	}
}

func TestClientAllocatesNothing(t *testing.T) {
	r, err := Parse(Forwarded, "10.0.0.0/8")
	require.NoError(t, err)
	req := request("10.0.0.1:1", "Forwarded", `for=6.6.6.6, for="[2001:db8::1]:80";proto=https, for=10.0.0.2`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.Client(req) }))
	r.header = XForwardedFor
	req = request("10.0.0.1:1", "X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.2")
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.Client(req) }))
}

// FuzzClient checks that any header gives an answer without panicking,
// and that the answer is either the peer or an address the header holds,
// never one a malformed hop made up.
func FuzzClient(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "for=1.2.3.4", `for="[::1]:80"`, `a="b,c";for=1.1.1.1, for=unknown`, `"`, `\`, ",,,", "for=", "[::1]", "1.2.3.4:99999"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, v string, forwarded bool) {
		h := XForwardedFor
		name := "X-Forwarded-For"
		if forwarded {
			h, name = Forwarded, "Forwarded"
		}
		r, err := Parse(h, "10.0.0.0/8", "loopback")
		require.NoError(t, err)
		got := r.Client(request("10.0.0.1:1", name, v))
		require.True(t, got.IsValid())
		if got == netip.MustParseAddr("10.0.0.1") {
			return
		}
		assert.True(t, strings.Contains(strings.ToLower(v), strings.ToLower(strings.TrimPrefix(got.String(), "::ffff:"))) || containsUnmapped(v, got),
			"client %v is not in %q", got, v)
	})
}

// containsUnmapped reports whether v holds an address that unmaps (or
// loses its zone) to a, written another way than a.String().
func containsUnmapped(v string, a netip.Addr) bool {
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(`,;="[] `, r) || unicode.IsSpace(r) }) {
		for _, cand := range []string{f, strings.TrimPrefix(f, "for")} {
			if x, ok := parseHop(cand); ok && x == a {
				return true
			}
			if ap, err := netip.ParseAddrPort(cand); err == nil && ap.Addr().Unmap().WithZone("") == a {
				return true
			}
		}
	}
	return false
}
