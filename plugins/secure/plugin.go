package secure

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"sort"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// PluginName is the plugin's name: registered twice in one context, the
// second is refused; a descendant context may register its own.
const PluginName = "secure"

// Nonce is the request's Content-Security-Policy nonce, the base64 text
// that follows "nonce-" in the header: the value of a nonce attribute
// (<script nonce="…">). A route takes it as a request value (an app.In
// field or a parameter of type secure.Nonce) where a plugin whose
// policy holds NonceSource is registered; Ready refuses a route that
// asks for it anywhere else.
type Nonce string

// Plugin returns the plugin, wrapped: its middleware lands in the
// context that registers it. Options apply in order over helmet v8's
// defaults; an invalid one makes Register refuse the plugin.
func Plugin(opts ...Option) *app.Plugin {
	c := newConfig(opts)
	in := &instance{opts: append([]Option{}, opts...), pol: compile(c)}
	return app.Wrap(func(s *app.Server) error {
		in.context = s.Path()
		if in.pol.nonce {
			err := s.ProvideRequest(app.Provider(func(ctx context.Context, _ struct{}) (Nonce, func(bool) error, error) {
				return Nonce(NonceOf(ctx)), nil, nil
			}))
			if err != nil {
				return err
			}
		}
		if err := s.OnRoute(in.resolve); err != nil {
			return err
		}
		// Outermost, as CORS is: an ancestor's refusal (the root's
		// rate limit) and a preflight carry the headers too.
		return s.Use(in.middleware, app.Outermost())
	}, app.Name(PluginName), app.Check(func() error { return c.err }))
}

// Off returns a plugin that removes, for the context registering it and
// its descendants, the headers an ancestor's plugin sets: helmet's
// defaults and both CSP headers, plus the headers named in extra (one an
// ancestor added with Header). What routes set themselves stays.
func Off(extra ...string) *app.Plugin {
	opts := []Option{none()}
	for _, name := range extra {
		opts = append(opts, Header(name, ""))
	}
	return Plugin(opts...)
}

// NonceOf returns the nonce of the request whose context is ctx: the one
// the nearest plugin with NonceSource in its policy put in the header,
// empty where none did.
func NonceOf(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey{}).(string)
	return n
}

type nonceKey struct{}

type header struct {
	key   string
	value []string // shared by every response: net/http only reads it; cap 1, so an Add copies
}

// policy is a config compiled at New: the headers to set and the ones
// to remove (a descendant turning off what an ancestor set).
type policy struct {
	set    []header
	off    []string
	cspKey string   // the CSP header a nonce goes in
	parts  []string // the policy around each NonceSource
	nonce  bool
}

func compile(c *config) *policy {
	p := &policy{}
	names := make([]string, 0, len(c.headers))
	for k := range c.headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := c.headers[k]; v != "" {
			p.set = append(p.set, header{k, []string{v}})
		} else {
			p.off = append(p.off, k)
		}
	}
	var other string
	p.cspKey, other = HeaderCSP, HeaderCSPReportOnly
	if c.reportOnly {
		p.cspKey, other = other, p.cspKey
	}
	p.off = append(p.off, other)
	csp := ""
	if !c.cspOff {
		csp = renderCSP(c.csp)
	}
	switch {
	case csp == "":
		p.off = append(p.off, p.cspKey)
	case strings.Contains(csp, NonceSource):
		p.nonce, p.parts = true, strings.Split(csp, NonceSource)
	default:
		p.set = append(p.set, header{p.cspKey, []string{csp}})
	}
	return p
}

func (in *instance) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := in.policyFor(r); p != nil {
			r = p.apply(w.Header(), r)
		}
		next.ServeHTTP(w, r)
	})
}

// apply sets p's headers in h, before the route writes its own, and
// returns r carrying the request's nonce when p makes one.
func (p *policy) apply(h http.Header, r *http.Request) *http.Request {
	for _, k := range p.off {
		delete(h, k)
	}
	for _, kv := range p.set {
		h[kv.key] = kv.value
	}
	switch {
	case p.nonce:
		n := newNonce()
		h[p.cspKey] = []string{strings.Join(p.parts, "'nonce-"+n+"'")}
		return r.WithContext(context.WithValue(r.Context(), nonceKey{}, n))
	case NonceOf(r.Context()) != "":
		// An ancestor's nonce is not in this policy: handlers must not
		// put it in a page.
		return r.WithContext(context.WithValue(r.Context(), nonceKey{}, ""))
	}
	return r
}

// newNonce returns 128 random bits in base64url, as CSP's nonce grammar
// allows. crypto/rand.Read never fails (Go 1.24).
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
