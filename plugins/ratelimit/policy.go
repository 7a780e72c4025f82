package ratelimit

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// Policy is one quota: Limit requests per Window for each key, named in
// the RateLimit-Policy and RateLimit headers.
type Policy struct {
	// Name identifies the policy in the headers ("ip", "user") and in the
	// store's keys: two limiters sharing a store and a policy name share
	// its budget. Letters, digits, '-', '_' and '.'.
	Name string
	// Limit is the number of requests a key may make per Window (its
	// burst); at least 1.
	Limit int
	// Window is the time over which Limit requests are allowed; whole
	// seconds, at least one. Requests come back one every Window/Limit.
	Window time.Duration
	// Key says whose budget a request spends; a request for which it
	// yields no key is not limited by this policy.
	Key Key
	// LimitFor, when set, gives a key its own limit (a paying customer's
	// API key, a tier): it gets the key as the store holds it, without
	// the policy's prefix (a key past 64 bytes is its hash). A result
	// below 1, or above one request a microsecond, means Limit.
	LimitFor func(key string) int
}

// Key says whose budget a request spends: ByIP, ByRequest or
// ByDecorator.
type Key struct {
	ip        bool
	request   func(*http.Request) string
	decorator string
	value     func(any) string
}

// ByIP keys a policy by the client's address (IPv6 addresses by their
// /64 network unless IPv6Prefix says otherwise, since one client holds a
// whole /64).
//
// A request without an address (a Unix socket's peer: a proxy on the
// same host) is not let through unlimited: every such request shares
// one budget, and the limiter logs a warning the first time, naming the
// policy. Behind such a proxy, key the policy on what the proxy says of
// the client instead: ByRequest reading a header it sets.
func ByIP() Key { return Key{ip: true} }

// noAddress is the key ByIP gives a request without a client address:
// no address is written so.
const noAddress = "no-address"

// ByRequest keys a policy by what fn reads from the request (a header,
// an API key's hash); an empty string leaves the request unlimited by
// this policy. fn runs before the request hooks, so it cannot see what
// they set.
func ByRequest(fn func(*http.Request) string) Key { return Key{request: fn} }

// ByDecorator keys a policy by the request decorator called name, of
// type T, as key turns it into a string (an empty string leaves the
// request unlimited by this policy: the anonymous requests of a per-user
// policy). The value is read when the limiter's hook runs, so place it
// after the hook that sets the decorator (AsHook). Plugin declares the
// decorator and that its hook reads it (app.ReadsDecorators), so Ready
// fails where the decorator is not visible, and where no hook declared
// with app.SetsDecorators sets it before the limiter runs; a policy that
// only ever sees it unset while a later hook sets it warns once.
func ByDecorator[T any](name string, key func(T) string) Key {
	return Key{decorator: name, value: func(v any) string {
		t, ok := v.(T)
		if !ok {
			return ""
		}
		return key(t)
	}}
}

// policy is a Policy checked and with its header values written once.
type policy struct {
	Policy
	prefix string   // the store key's prefix: name and ":"
	noAddr string   // a ByIP policy's key of every request without a client address
	header []string // the RateLimit-Policy item, shared: never appended to in place (its capacity is 1)
}

// maxWindow bounds a policy's window: a year keeps every instant the
// algorithm adds well inside int64 nanoseconds.
const maxWindow = 366 * 24 * time.Hour

// maxKeyLen bounds a key as a store holds it: a longer one (a client's
// header, say) is held as its SHA-256, so a flood of megabyte keys costs
// what short ones cost.
const maxKeyLen = 64

func compile(p Policy) (policy, error) {
	switch {
	case !validName(p.Name):
		return policy{}, fmt.Errorf("ratelimit: invalid policy name %q: use letters, digits, '-', '_' and '.'", p.Name)
	case p.Limit < 1:
		return policy{}, fmt.Errorf("ratelimit: policy %q: limit %d is below 1", p.Name, p.Limit)
	case p.Window < time.Second || p.Window%time.Second != 0:
		return policy{}, fmt.Errorf("ratelimit: policy %q: window %v is not a whole number of seconds", p.Name, p.Window)
	case p.Window > maxWindow:
		return policy{}, fmt.Errorf("ratelimit: policy %q: window %v is longer than %v", p.Name, p.Window, maxWindow)
	case int64(p.Limit) > p.Window.Microseconds():
		return policy{}, fmt.Errorf("ratelimit: policy %q: %d requests per %v is more than one a microsecond", p.Name, p.Limit, p.Window)
	case !p.Key.ip && p.Key.request == nil && p.Key.value == nil:
		return policy{}, fmt.Errorf("ratelimit: policy %q has no key: give ByIP, ByRequest or ByDecorator", p.Name)
	case p.Key.value != nil && p.Key.decorator == "":
		return policy{}, fmt.Errorf("ratelimit: policy %q: ByDecorator needs a decorator name", p.Name)
	}
	cp := policy{Policy: p, prefix: p.Name + ":", noAddr: p.Name + ":" + noAddress}
	cp.header = []string{cp.headerFor(p.Limit)}
	return cp, nil
}

// headerFor is the RateLimit-Policy item for a quota of limit.
func (p *policy) headerFor(limit int) string {
	return strconv.Quote(p.Name) + ";q=" + strconv.Itoa(limit) + ";w=" + strconv.FormatInt(int64(p.Window/time.Second), 10)
}

// limitOf is the limit of the key stored as key, and its
// RateLimit-Policy value.
func (p *policy) limitOf(key string) (int, []string) {
	if p.LimitFor == nil {
		return p.Limit, p.header
	}
	n := p.LimitFor(key[len(p.prefix):])
	if n < 1 || n == p.Limit || int64(n) > p.Window.Microseconds() {
		return p.Limit, p.header
	}
	return n, []string{p.headerFor(n)}
}

// validName keeps names within what a Structured Field string holds
// without escapes and what a store key holds without confusion.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// storeKey is the key of ip, or of what the policy's key function reads,
// in the store; "" when the request has none.
func (p *policy) storeKey(r *http.Request, ip netip.Addr, decorator func(string) (any, bool)) string {
	switch {
	case p.Key.ip:
		if !ip.IsValid() {
			return p.noAddr
		}
		var a [80]byte
		return string(ip.AppendTo(append(a[:0], p.prefix...)))
	case p.Key.request != nil:
		return p.join(p.Key.request(r))
	case decorator != nil:
		if v, ok := decorator(p.Key.decorator); ok {
			return p.join(p.Key.value(v))
		}
	}
	return ""
}

// join is the store key of k: "" for none, k's SHA-256 past maxKeyLen.
func (p *policy) join(k string) string {
	switch {
	case k == "":
		return ""
	case len(k) > maxKeyLen:
		sum := sha256.Sum256([]byte(k))
		return p.prefix + "#" + base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return p.prefix + k
}

// state is the RateLimit item of d: remaining units and whole seconds
// to the reset, rounded up.
func (p *policy) state(d Decision) string {
	var a [96]byte
	b := strconv.AppendQuote(a[:0], p.Name)
	b = append(b, ";r="...)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, ceilSeconds(d.Reset), 10)
	return string(b)
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}
