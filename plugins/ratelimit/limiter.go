package ratelimit

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// nopLog is the logger of a limiter given none; Plugin replaces it with
// its context's.
var nopLog = zap.NewNop()

// ErrNeedsHook is returned for a ByDecorator policy in a middleware: a
// decorator is set by a hook, after every middleware has run.
var ErrNeedsHook = errors.New("ratelimit: a ByDecorator policy needs AsHook, since middleware runs before the hooks that set decorators")

// ErrNoPolicy is returned by New without a policy.
var ErrNoPolicy = errors.New("ratelimit: no policy: give ratelimit.Limit")

// Limiter applies its policies to requests, as a middleware
// (Middleware) or a request hook (Hook).
type Limiter struct {
	policies   []policy
	decorators []string
	store      Store
	allow      []netip.Prefix
	skip       func(*http.Request) bool
	ban        int
	hook       bool
	kind       app.Hook
	clientIP   func(*http.Request) netip.Addr
	needIP     bool
	v6bits     int
	log        *zap.Logger
	failing    atomic.Bool
	noAddr     atomic.Bool // a ByIP policy has met a request without an address
	keyed      atomic.Bool // a ByDecorator policy has had a key
	unkeyed    atomic.Bool // checkKeyed has warned
	onRefused  func(r *http.Request, policy string, banned bool)
	headers    bool
	exempt     atomic.Pointer[map[routeKey]*Exempt] // the hook placement's exempt routes; replaced, never changed
}

// New returns a limiter for opts.
func New(opts ...Option) (*Limiter, error) {
	c := config{v6bits: 64}
	for _, o := range opts {
		o(&c)
	}
	if c.err != nil {
		return nil, c.err
	}
	if len(c.policies) == 0 {
		return nil, ErrNoPolicy
	}
	l := &Limiter{store: c.store, allow: c.allow, skip: c.skip, ban: c.ban, hook: c.asHook, kind: c.hook,
		clientIP: c.clientIP, needIP: len(c.allow) > 0, v6bits: c.v6bits, log: c.log, onRefused: c.onRefused, headers: !c.noHeaders}
	if l.store == nil {
		l.store = NewMemory()
	}
	if l.log == nil {
		l.log = nopLog
	}
	l.exempt.Store(&map[routeKey]*Exempt{})
	seen := map[string]bool{}
	for _, p := range c.policies {
		cp, err := compile(p)
		if err != nil {
			return nil, err
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("ratelimit: two policies named %q", p.Name)
		}
		seen[p.Name] = true
		if p.Key.value != nil {
			if !l.hook {
				return nil, fmt.Errorf("policy %q: %w", p.Name, ErrNeedsHook)
			}
			l.decorators = append(l.decorators, p.Key.decorator)
		}
		l.needIP = l.needIP || p.Key.ip
		l.policies = append(l.policies, cp)
	}
	return l, nil
}

// verdict is what the limiter decided for a request.
type verdict struct {
	status int           // 0: pass
	retry  time.Duration // until a refused request would pass
}

// decide runs the policies for r, writes their headers into h and says
// whether r passes. decorator reads request decorators (nil in a
// middleware); ip is the client's address as the server finds it
// (behind its trusted proxies), read only when a policy or the
// allow-list needs it.
func (l *Limiter) decide(r *http.Request, h http.Header, decorator func(string) (any, bool), ip func(*http.Request) netip.Addr, ex *Exempt) verdict {
	addr, limited := l.client(r, ip, ex)
	if !limited {
		return verdict{}
	}
	var v verdict
	for i := range l.policies {
		p := &l.policies[i]
		if ex.covers(p.Name) {
			continue
		}
		key := p.storeKey(r, addr, decorator)
		if key == "" {
			continue
		}
		if p.Key.value != nil && !l.keyed.Load() {
			l.keyed.Store(true)
		}
		if p.Key.ip && !addr.IsValid() {
			l.noAddress(p.Name)
		}
		limit, header := p.limitOf(key)
		d, err := l.store.Take(r.Context(), key, limit, p.Window)
		if err != nil {
			if r.Context().Err() == nil { // not a client that left
				l.storeFailed(err)
			}
			return verdict{status: http.StatusServiceUnavailable, retry: time.Second}
		}
		l.storeAnswered()
		if l.headers {
			if old := h["Ratelimit-Policy"]; old == nil {
				h["Ratelimit-Policy"] = header
			} else {
				h["Ratelimit-Policy"] = append(old, header...)
			}
			h["Ratelimit"] = append(h["Ratelimit"], p.state(d))
		}
		if d.Allowed {
			continue
		}
		status := http.StatusTooManyRequests
		if l.ban > 0 && d.Denied > l.ban {
			status = http.StatusForbidden
		}
		if l.onRefused != nil {
			l.onRefused(r, p.Name, status == http.StatusForbidden)
		}
		v.status = max(v.status, status)
		v.retry = max(v.retry, d.RetryAfter)
	}
	return v
}

// client reports whether r is limited at all — not skipped, exempt from
// every policy or from an allowed network — and the address ByIP keys
// it by (read only when a policy or the allow-list needs it).
func (l *Limiter) client(r *http.Request, ip func(*http.Request) netip.Addr, ex *Exempt) (netip.Addr, bool) {
	if l.skip != nil && l.skip(r) || ex != nil && len(ex.Policies) == 0 {
		return netip.Addr{}, false
	}
	var addr netip.Addr
	if l.needIP {
		if l.clientIP != nil {
			ip = l.clientIP
		}
		addr = ip(r).Unmap()
		for _, p := range l.allow {
			if p.Contains(addr) {
				return netip.Addr{}, false
			}
		}
		if addr.Is6() && l.v6bits < 128 {
			pfx, _ := addr.Prefix(l.v6bits)
			addr = pfx.Addr()
		}
	}
	return addr, true
}

// checkKeyed is the plugin's onResponse hook when a policy is keyed by a
// decorator: as long as no request has given such a policy a key, it
// looks whether the decorator holds one now that the request is
// answered. Then a hook set it after the limiter ran — registered after
// it, and not declared with app.SetsDecorators, which Ready would have
// refused — and the policy limits nobody: it warns, once.
func (l *Limiter) checkKeyed(req *httpx.Request) {
	if l.keyed.Load() || l.unkeyed.Load() {
		return
	}
	r := req.Raw()
	ex := l.exemptOf(req)
	if _, limited := l.client(r, func(*http.Request) netip.Addr { return req.ClientIP() }, ex); !limited {
		return
	}
	for i := range l.policies {
		p := &l.policies[i]
		if p.Key.value == nil || ex.covers(p.Name) {
			continue
		}
		if v, ok := req.Decorator(p.Key.decorator); !ok || p.Key.value(v) == "" {
			continue
		}
		if !l.keyed.Load() && l.unkeyed.CompareAndSwap(false, true) {
			l.log.Warn("rate limit: a policy keyed by a request decorator has only ever seen it unset, and a hook sets it after the limiter ran: "+
				"the policy limits nobody; register the limiter after the hook that sets the decorator, and declare that hook with app.SetsDecorators",
				zap.String("policy", p.Name), zap.String("decorator", p.Key.decorator))
		}
		return
	}
}

// storeFailed logs the first failure of an outage, not every request's.
func (l *Limiter) storeFailed(err error) {
	if l.failing.CompareAndSwap(false, true) {
		l.log.Warn("rate limit store failing: answering 503 until it answers", zap.Error(err))
	}
}

// noAddress logs, once, that requests without a client address share
// one budget of policy: the server is likely behind a proxy on a Unix
// socket, where ByIP cannot tell clients apart.
func (l *Limiter) noAddress(policy string) {
	if !l.noAddr.Load() && l.noAddr.CompareAndSwap(false, true) {
		l.log.Warn("rate limit: a request has no client address (a Unix socket's peer): every such request shares one budget; key the policy with ByRequest on a header the proxy sets",
			zap.String("policy", policy))
	}
}

func (l *Limiter) storeAnswered() {
	if l.failing.Load() && l.failing.CompareAndSwap(true, false) {
		l.log.Info("rate limit store answers again")
	}
}

// Middleware applies the limiter before next (the default placement).
func (l *Limiter) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ex *Exempt
		if e, ok := app.RouteConfigOf[Exempt](r); ok {
			ex = &e
		}
		v := l.decide(r, w.Header(), nil, app.ClientIP, ex)
		if v.status == 0 {
			next.ServeHTTP(w, r)
			return
		}
		app.WriteError(w, r, refusal(w.Header(), v))
	})
}

// Hook applies the limiter as a request hook (see AsHook); it answers a
// refusal itself.
func (l *Limiter) Hook(req *httpx.Request, rep *httpx.Reply) error {
	ex := l.exemptOf(req)
	v := l.decide(req.Raw(), rep.Header(), req.Decorator, func(*http.Request) netip.Addr { return req.ClientIP() }, ex)
	if v.status == 0 {
		return nil
	}
	return rep.SendError(refusal(rep.Header(), v))
}

// exemptOf is the Exempt of req's route, for the hook placement.
func (l *Limiter) exemptOf(req *httpx.Request) *Exempt {
	if rt := req.Route(); rt != nil {
		return (*l.exempt.Load())[routeKey{rt.Method, rt.Path}]
	}
	return nil
}

// refusal sets the Retry-After header of v's answer and returns the
// error it answers, which the server writes in its error format.
func refusal(h http.Header, v verdict) *httpx.Error {
	secs := max(ceilSeconds(v.retry), 1)
	h["Retry-After"] = []string{strconv.FormatInt(secs, 10)}
	msg := "Rate limit exceeded, retry in " + strconv.FormatInt(secs, 10) + " second"
	if secs != 1 {
		msg += "s"
	}
	switch v.status {
	case http.StatusForbidden:
		msg = "Rate limit exceeded too many times, retry in " + strconv.FormatInt(secs, 10) + " seconds"
	case http.StatusServiceUnavailable:
		msg = "Rate limit unavailable"
	}
	return httpx.NewError(v.status, "", msg)
}
