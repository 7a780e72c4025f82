// Package oidc logs browsers in through an OpenID Connect provider, by
// the authorization-code flow, into a plugins/session session.
//
// GET /login/oidc sends the browser to the provider's authorization
// endpoint with a state, a nonce and a PKCE challenge (S256), all three
// random and new. The provider sends it back to the callback, the path
// of Client.RedirectURL, which accepts the answer only when it ends a
// log-in this browser started and has not finished: the code is
// exchanged (with the client secret and the PKCE verifier), the ID token
// verified (signature from the provider's JWKS, issuer, audience,
// expiry, and the nonce sent), and the log-in function the application
// gives makes the session's value of the identity. The session is then
// regenerated, so that the browser never keeps a session id it had
// before (no fixation), and the browser goes to AfterLogin.
//
//	s.Register(session.Plugin[user](store, session.Cookie("sid")))
//	s.Register(oidc.Plugin(oidc.Client{
//		Issuer:      "https://id.example",
//		ID:          "todo",
//		Secret:      secret,
//		RedirectURL: "https://todo.example/login/oidc/callback",
//	}, func(ctx context.Context, id *oidc.Identity) (user, error) {
//		return user{Name: id.Subject, IDToken: id.IDToken}, nil
//	}, oidc.EndSession(func(u user) string { return u.IDToken })))
//
// # Binding a log-in to its browser
//
// The state, the nonce and the PKCE verifier never leave the server:
// they are kept in a flow store (a session.Store, in memory by default)
// under a random token, and the browser holds that token in a flow
// cookie (HttpOnly, Secure, SameSite=Lax, sent to the callback only,
// for FlowTimeout). The callback takes the flow out of the store before
// anything else, so that it serves once; a callback without the cookie,
// with an expired or used flow, or whose state is not the flow's is
// refused 403 with code CodeState. That refuses a state sent to another
// browser (log-in cross-site request forgery: an attacker's own log-in
// finished in the victim's browser), a replayed callback, a forged one.
// The store must be one that forgets: with several instances, a shared
// one (the Redis store of the sessions); never the cookie store.
//
// # Refusals
//
// Every refused callback answers in the server's error shape, sets no
// session, and says nothing of the provider's answer: an error from the
// provider (access_denied) is 403 CodeDenied; a missing code 400, a
// code the provider did not exchange or an ID token that fails a check
// 401 CodeToken. The log has the reason, bounded. GET /login/oidc
// answers 503 while the provider's discovery document cannot be read.
//
// # Log-out
//
// POST /logout/oidc ends the session. With EndSession, and when the
// provider's discovery document has an end_session_endpoint, it then
// sends the browser there (OpenID Connect RP-Initiated Logout) with the
// session's ID token as id_token_hint and AfterLogout as the
// post_logout_redirect_uri; otherwise to AfterLogout. A log-out is a
// POST so that another site cannot log a user out with an image; the
// csrf plugin guards it like any other form.
package oidc
