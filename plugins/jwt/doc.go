// Package jwt is Burrow's plugin for access tokens: it verifies the
// bearer JWT of every request to the context that registers it (and its
// descendants), and gives handlers the verified claims as the request
// value *jwt.Claims[T].
//
//	s.Register(func(s *app.Server) error {
//		s.Register(jwt.Plugin[Profile](
//			jwt.Discovery("https://id.example.com"), // keys from the issuer's JWK set
//			jwt.Audience("todos-api"),
//		))
//		s.Get("/todos", list, jwt.Scopes("todos:read"))
//		return s.Post("/todos", create, jwt.Scopes("todos:write"))
//	}, app.Name("api"))
//
// # Keys
//
// Discovery reads the issuer's OpenID discovery document for its JWK set;
// JWKS names the set directly. The keys are fetched when the server is
// Ready, then again when the answer's caching headers say (max-age or
// Expires, within a minute and a day; 15 minutes when they say nothing),
// and when a token names a key id the set lacks: at most one such fetch a
// second, however many tokens ask, and tokens arriving while it runs wait
// for it. A fetch that fails keeps the keys fetched before, so tokens
// keep verifying while the issuer is down, and is retried after a
// second, doubling to five minutes. Health adds a readiness check,
// "jwks", failing until the first fetch succeeds.
//
// Secret (HS256) and PublicKey are static keys, for a service that signs
// its own tokens.
//
// # What is verified
//
// Each key has an allow-list of algorithms, after its type: RS256 to
// RS512 and PS256 to PS512 for an RSA key (2048 bits or more), ES256,
// ES384 or ES512 for an EC key after its curve, EdDSA for Ed25519, and
// HS256 for a Secret alone. "none" is never accepted, an HMAC algorithm
// never with a public key (a token "signed" with the issuer's public key
// as an HMAC secret is refused), and the header's jku, x5u and jwk never
// choose a key: the plugin chooses it, by kid, among those it has. Then
// the claims: exp is required and must be in the future, nbf in the past,
// each with Leeway (30 seconds by default); iss must be the issuer's, aud
// must hold one of Audience; Require names other claims a token must
// have. A token longer than MaxTokenSize (8 KiB) is refused before it is
// decoded. The signature is checked by github.com/lestrrat-go/jwx/v3.
//
// Optional lets requests without a token through, with nil claims;
// Scheme takes tokens from another authorization scheme ("Token").
//
// # Answers
//
// A request without a token is answered 401 with "WWW-Authenticate:
// Bearer"; one whose token fails any check, 401 with Bearer
// error="invalid_token", never saying which check failed nor repeating
// the token; one whose token lacks a route's Scopes, 403 with Bearer
// error="insufficient_scope", scope="…" (RFC 6750). The refusals are
// *httpx.Error values with the codes invalid_token and
// insufficient_scope, answered by the route's error handler: the
// server's error bodies (problem details where the server answers with
// them), or the shape of an API's own handler. The reason goes to the
// log, at debug by default (LogLevel).
//
// # Where it applies
//
// The plugin is wrapped: it guards the context that registers it and its
// descendants, and *jwt.Claims[T] is visible there only, so a handler
// elsewhere that asks for it fails Ready. A route given Scopes where no
// JWT plugin guards it fails Ready too (app.ErrUnreadConfig). The routes
// it guards carry its security scheme in their description (an
// openIdConnect scheme with Discovery, http bearer of format JWT
// otherwise), with their scopes.
package jwt
