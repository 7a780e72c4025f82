package ratelimit

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

// Option configures New and Plugin. An invalid option makes New return
// an error, and Register (through Ready) fail naming the plugin.
type Option func(*config)

type config struct {
	policies  []Policy
	store     Store
	allow     []netip.Prefix
	skip      func(*http.Request) bool
	ban       int
	hook      app.Hook
	asHook    bool
	clientIP  func(*http.Request) netip.Addr
	v6bits    int
	log       *zap.Logger
	onRefused func(*http.Request, string, bool)
	noHeaders bool
	err       error
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Limit adds policies; every one counts each request it has a key for,
// and the request is refused when any refuses it.
func Limit(p ...Policy) Option {
	return func(c *config) { c.policies = append(c.policies, p...) }
}

// WithStore sets where the keys' state lives: a memory store of its own
// by default (NewMemory, bounded); a shared store (Redis) makes several
// instances' limits one.
func WithStore(s Store) Option {
	return func(c *config) {
		if s == nil {
			c.fail(errors.New("ratelimit.WithStore: nil store"))
		}
		c.store = s
	}
}

// Allow exempts clients whose address lies in one of prefixes (a
// monitoring network, the load balancer's checks): no policy counts
// them and they get no headers.
func Allow(prefixes ...netip.Prefix) Option {
	return func(c *config) {
		for _, p := range prefixes {
			if !p.IsValid() {
				c.fail(fmt.Errorf("ratelimit.Allow: invalid prefix %v", p))
				continue
			}
			c.allow = append(c.allow, p.Masked())
		}
	}
}

// Skip exempts the requests fn returns true for (a health path, static
// files): no policy counts them and they get no headers. A function
// cannot be read at start-up, so the routes it skips still list the
// policies in their guards (app.RouteInfo.Guards): an OnRoute hook takes
// them out with app.Unguard, or the route is given Exempt, which does.
func Skip(fn func(*http.Request) bool) Option {
	return func(c *config) { c.skip = fn }
}

// Ban answers 403 instead of 429 to a key refused more than n times in a
// row, until its budget is back (0, the default, never bans).
func Ban(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.fail(fmt.Errorf("ratelimit.Ban: negative count %d", n))
		}
		c.ban = n
	}
}

// AsHook places the limiter in a request hook of kind (app.OnRequest,
// app.PreHandler, …) instead of a middleware: a per-user policy then
// runs after the authentication hook registered before it and reads
// the decorator it set. A hook does not see a context's 405 answers (no
// route matched, so no request hook runs); the middleware, the
// default, counts them too, before any hook, so refusals by an
// authentication hook count toward a per-IP limit.
func AsHook(kind app.Hook) Option {
	return func(c *config) { c.hook, c.asHook = kind, true }
}

// ClientIP replaces how the client's address is read. By default it is
// the server's: the peer's address, or behind the proxies given to
// app.WithTrustedProxies the right-most forwarded address none of them
// holds (httpx.Request.ClientIP, app.ClientIP), so a client cannot
// escape its limit by forging X-Forwarded-For.
func ClientIP(fn func(*http.Request) netip.Addr) Option {
	return func(c *config) {
		if fn == nil {
			c.fail(errors.New("ratelimit.ClientIP: nil function"))
		}
		c.clientIP = fn
	}
}

// IPv6Prefix sets how many leading bits of an IPv6 address ByIP keys on
// (64 by default: one client commonly holds a /64 and could otherwise
// take a new budget with each address; 128 keys each address).
func IPv6Prefix(bits int) Option {
	return func(c *config) {
		if bits < 1 || bits > 128 {
			c.fail(fmt.Errorf("ratelimit.IPv6Prefix: %d bits is not within 1…128", bits))
		}
		c.v6bits = bits
	}
}

// Logger sets where a failing store is reported (Plugin uses the
// context's logger; New none).
func Logger(l *zap.Logger) Option {
	return func(c *config) { c.log = l }
}

// OnRefused calls fn for each policy that refuses a request (banned: the
// refusal is a 403 of Ban), before the answer: count refusals, log the
// abusive. It runs on the request's goroutine, so it must be quick.
func OnRefused(fn func(r *http.Request, policy string, banned bool)) Option {
	return func(c *config) { c.onRefused = fn }
}

// NoHeaders leaves out the RateLimit-Policy and RateLimit fields (a
// refusal keeps its Retry-After): for limits a client should not learn to
// pace itself against, such as a login's.
func NoHeaders() Option {
	return func(c *config) { c.noHeaders = true }
}
