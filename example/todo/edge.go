package main

import (
	"strings"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/compress"
	"github.com/burrow-go/burrow/plugins/cors"
	"github.com/burrow-go/burrow/plugins/csrf"
	"github.com/burrow-go/burrow/plugins/secure"
	"github.com/burrow-go/burrow/plugins/session"
)

// edgePlugin equips the root for browsers and networks: security headers
// on every answer, compression of those worth it, and CORS for the
// origins given (none: no CORS header anywhere). It is wrapped, so all
// three land in the root and cover every route, 404 and 405.
func edgePlugin(origins []string) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		// First, so the headers are on every answer, even one the CORS
		// plugin gives itself (a preflight). The page's policy: helmet's,
		// with no upgrade of its requests to https, since the service
		// listens on plain HTTP (behind a proxy that ends TLS, put it
		// back).
		if err := s.Register(secure.Plugin(secure.DropDirective("upgrade-insecure-requests"))); err != nil {
			return err
		}
		// 1 KiB and more, as the client prefers; the page's files come
		// precompressed and are left as they are.
		if err := s.Register(compress.Plugin()); err != nil {
			return err
		}
		if len(origins) == 0 {
			return nil
		}
		// Another origin's page calls the API with a bearer token: no
		// cookies cross origins (no Credentials), so a session is this
		// origin's page's alone.
		return s.Register(cors.Plugin(cors.Origins(origins...),
			cors.AllowHeaders("authorization", "content-type"),
			cors.ExposeHeaders("location"),
			cors.MaxAge(time.Hour)))
	}, app.Name("edge"))
}

// apiPlugin is the API's context: its answers carry the security policy
// of a JSON API (nothing may load or frame them); browsers keep a
// session there (POST /session sets the cookie) that the todo routes
// accept instead of a token; and a request that a cookie may have
// authenticated is refused when another site sent it (CSRF).
func apiPlugin(st setup, ids []int64) func(*app.Server) error {
	a := newAccounts(st.users, ids)
	return func(s *app.Server) error {
		s.Policy(apiPolicies()...)
		s.Register(secure.Plugin(secure.API()))
		s.Register(session.Plugin[account](st.sessions, session.Cookie(sessionCookie)))
		s.Register(csrf.Plugin(csrf.Exempt(bearerRequest)))
		s.Register(sessionPlugin(a), app.Name("session"))
		if st.oidc.issuer != "" {
			s.Register(oidcPlugin(st.oidc, a, st.sessions))
		}
		s.Register(todosPlugin(guardPlugin(a, st.sessions), st.traffic, st.keys, st.requireIfMatch), app.Name("todos"))
		return nil
	}
}

// bearerRequest reports whether req carries a bearer token, which a
// browser never adds by itself: such a request cannot be forged by
// another site, and is never refused as CSRF. Another scheme is no
// proof: a browser adds the Basic credentials it holds for the site (a
// Basic-auth gate in front of the service) to a cross-site form's
// request too. (With an authorization header, the auth hook ignores any
// session cookie.)
func bearerRequest(req *httpx.Request) bool {
	scheme, _, _ := strings.Cut(req.Header("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer")
}
