// Package ratelimit limits how often a client may call a context's
// routes: policies of Limit requests per Window, each keyed by the
// client's address, a request value or a request decorator (the user an
// authentication hook set), decided by the generic cell rate algorithm
// in a Store — a bounded memory store by default, Redis (the redisstore
// module) to share the limits of several instances.
//
// Every answer a policy counted carries the fields of the IETF draft
// draft-ietf-httpapi-ratelimit-headers-10, one list item per policy:
//
//	RateLimit-Policy: "ip";q=60;w=60
//	RateLimit: "ip";r=59;t=1
//
// (q: the quota, w: the window in seconds, r: the requests left, t: the
// seconds until the whole quota is back). A refused request gets 429 in
// the server's error format (app.WriteError; problem details under
// app.WithProblemDetails) with Retry-After, the seconds until one
// request would pass; by default:
//
//	{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 1 second"}
//
// The plugin is wrapped: it limits the context that registers it and its
// descendants, never a sibling. By default it is a middleware, so it
// runs before every request hook and counts what they refuse (a failed
// login spends the client's budget) and the context's not-found and 405
// answers (URL guessing spends it too). A policy keyed by a decorator
// runs as a hook placed after the authentication hook (AsHook); Ready
// fails where the decorator is not visible, and where no hook declared
// with app.SetsDecorators sets it before the limiter runs
// (app.ErrHookOrder), instead of serving a limit that limits nobody:
//
//	s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{
//		Name: "ip", Limit: 60, Window: time.Minute, Key: ratelimit.ByIP(),
//	})))
//	s.Register(func(s *app.Server) error {
//		s.AddHook(app.OnRequest, authenticate, app.SetsDecorators("user"))
//		s.Register(ratelimit.Plugin(ratelimit.AsHook(app.OnRequest), ratelimit.Limit(ratelimit.Policy{
//			Name: "user", Limit: 600, Window: time.Minute,
//			Key: ratelimit.ByDecorator("user", func(u *User) string { return u.ID }),
//		})))
//		return app.Get(s, "/me", me)
//	})
//
// ByIP keys on the server's client address: behind the proxies given to
// app.WithTrustedProxies, the right-most forwarded address none of them
// holds; from any other peer, the peer's, whatever it forwards. Requests
// without an address (a Unix socket's peer) share one budget, and the
// limiter warns once. A route given app.WithConfig(Exempt{}) is out of
// the limits of its contexts.
//
// The algorithm lets a key make Limit requests at once, then one every
// Window/Limit: a client that waits gets its budget back gradually,
// instead of all of it at a window's edge as with a fixed window (where
// twice the limit passes around the edge).
package ratelimit
