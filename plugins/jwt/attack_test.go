package jwt_test

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/jwt"
)

type profile struct {
	Email string `json:"email"`
}

// newAPI serves /me in a context guarded by the plugin made of opts, and
// /public beside it.
func newAPI(t testing.TB, serverOpts []app.Option, opts ...jwt.Option) *app.Server {
	s := apptest.New(t, serverOpts...)
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[profile](opts...))
		s.Get("/me", func(c *jwt.Claims[profile]) (map[string]any, error) {
			return map[string]any{"sub": c.Subject, "email": c.Custom.Email, "scopes": c.Scopes}, nil
		})
		s.Post("/todos", func(c *jwt.Claims[profile]) (string, error) { return "created by " + c.Subject, nil },
			jwt.Scopes("todos:write"))
		return s.Register(func(s *app.Server) error {
			return s.Get("/nested", func(c *jwt.Claims[profile]) (string, error) { return c.Subject, nil })
		}, app.Name("nested"))
	}, app.Name("api"))
	s.Get("/public", func() (string, error) { return "open", nil })
	require.NoError(t, s.Ready())
	return s
}

// TestAttacks sends the tokens of the usual attacks on JWT verification;
// each is refused alike: 401, the invalid_token challenge, a body that
// says neither which check failed nor the token.
func TestAttacks(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"))
	now := time.Now()
	valid := is.claims(now, nil)

	// What an attacker may know of the issuer's public key, used as an
	// HMAC secret.
	der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	jwkJSON, _ := json.Marshal(jwkOf("rsa1", &rsaKey.PublicKey))
	attackerJWK := jwkOf("rsa1", &ecAttack.PublicKey)

	tampered := func() string {
		parts := strings.Split(is.token(now, nil), ".")
		other := strings.Split(is.token(now, map[string]any{"sub": "root"}), ".")
		return parts[0] + "." + other[1] + "." + parts[2]
	}

	kid := map[string]any{"kid": "rsa1"}
	tests := []struct {
		name  string
		token string
	}{
		{"alg none", sign("none", nil, kid, valid)},
		{"alg None", sign("None", nil, kid, valid)},
		{"alg none without kid", sign("none", nil, nil, valid)},
		{"alg none with a signature", strings.Split(sign("none", nil, kid, valid), ".")[0] + "." +
			strings.Split(is.token(now, nil), ".")[1] + "." + strings.Split(is.token(now, nil), ".")[2]},
		{"HS256 with the public key as PEM", sign("HS256", pemKey, kid, valid)},
		{"HS256 with the public key as DER", sign("HS256", der, kid, valid)},
		{"HS256 with the public key as JWK", sign("HS256", jwkJSON, kid, valid)},
		{"HS256 with the modulus", sign("HS256", rsaKey.N.Bytes(), kid, valid)},
		{"HS256 without kid", sign("HS256", pemKey, nil, valid)},
		{"wrong signature", sign("RS256", rsaOther, kid, valid)},
		{"tampered payload", tampered()},
		{"signature of another token", strings.Join(append(strings.Split(is.token(now, nil), ".")[:2],
			strings.Split(is.token(now, map[string]any{"sub": "x"}), ".")[2]), ".")},
		{"ES256 header on the RSA key", sign("ES256", ecAttack, kid, valid)},
		{"RS256 header on the EC key", sign("RS256", rsaOther, map[string]any{"kid": "ec1"}, valid)},
		{"unknown kid", sign("RS256", rsaOther, map[string]any{"kid": "evil"}, valid)},
		{"no kid, another key", sign("RS256", rsaOther, nil, valid)},
		{"another issuer", is.token(now, map[string]any{"iss": "https://evil.example"})},
		{"issuer with a trailing slash", is.token(now, map[string]any{"iss": is.URL + "/"})},
		{"no issuer", is.token(now, map[string]any{"iss": nil})},
		{"another audience", is.token(now, map[string]any{"aud": "other-api"})},
		{"another audience in a list", is.token(now, map[string]any{"aud": []string{"a", "b"}})},
		{"no audience", is.token(now, map[string]any{"aud": nil})},
		{"expired", is.token(now, map[string]any{"exp": now.Add(-jwt.DefaultLeeway - time.Second).Unix()})},
		{"no expiry", is.token(now, map[string]any{"exp": nil})},
		{"expiry as a string", is.token(now, map[string]any{"exp": "9999999999"})},
		{"not yet valid beyond the leeway", is.token(now, map[string]any{"nbf": now.Add(jwt.DefaultLeeway + 10*time.Second).Unix()})},
		{"jku to the attacker's keys", sign("ES256", ecAttack, map[string]any{"kid": "evil", "jku": is.URL + "/evil-jwks"}, valid)},
		{"jku with a known kid", sign("ES256", ecAttack, map[string]any{"kid": "ec1", "jku": is.URL + "/evil-jwks"}, valid)},
		{"x5u", sign("ES256", ecAttack, map[string]any{"kid": "ec1", "x5u": is.URL + "/evil.pem"}, valid)},
		{"embedded jwk", sign("ES256", ecAttack, map[string]any{"kid": "ec1", "jwk": attackerJWK}, valid)},
		{"embedded jwk without kid", sign("ES256", ecAttack, map[string]any{"jwk": attackerJWK}, valid)},
		{"crit header", sign("RS256", rsaKey, map[string]any{"kid": "rsa1", "crit": []string{"exp"}, "exp": 1}, valid)},
		{"b64 false", sign("RS256", rsaKey, map[string]any{"kid": "rsa1", "b64": false}, valid)},
		{"oversized", is.token(now, map[string]any{"pad": strings.Repeat("a", jwt.DefaultMaxTokenSize)})},
		{"garbage", "not-a-token"},
		{"two parts", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0"},
		{"four parts", is.token(now, nil) + ".x"},
		{"empty signature", strings.Join(strings.Split(is.token(now, nil), ".")[:2], ".") + "."},
		{"header not base64", "!!!." + strings.Join(strings.Split(is.token(now, nil), ".")[1:], ".")},
		{"header not JSON", b64([]byte("alg")) + "." + strings.Join(strings.Split(is.token(now, nil), ".")[1:], ".")},
		{"payload not JSON", signRaw(t, `{"alg":"RS256","kid":"rsa1"}`, `not json`)},
		{"payload a JSON array", signRaw(t, `{"alg":"RS256","kid":"rsa1"}`, `[1,2]`)},
		{"claims of the wrong types", is.token(now, map[string]any{"email": 42})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, path := range []string{"/me", "/nested"} {
				res := apptest.Get(t, s, path, auth(tt.token)...)
				assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
				assert.Equal(t, `Bearer error="invalid_token"`, res.Header.Get("Www-Authenticate"))
				assert.JSONEq(t, `{"statusCode":401,"code":"invalid_token","error":"Unauthorized","message":"Invalid token"}`, res.Body)
				assert.NotContains(t, res.Body, tt.token)
			}
		})
	}

	// The controls: the issuer's own tokens pass, with both keys and
	// within the leeway.
	for name, token := range map[string]string{
		"RS256":                 is.token(now, map[string]any{"email": "ada@example.com"}),
		"PS256":                 sign("PS256", rsaKey, kid, is.claims(now, map[string]any{"email": "ada@example.com"})),
		"ES256":                 sign("ES256", ecKey, map[string]any{"kid": "ec1"}, is.claims(now, map[string]any{"email": "ada@example.com"})),
		"expired within leeway": is.token(now, map[string]any{"email": "ada@example.com", "exp": now.Add(-jwt.DefaultLeeway / 2).Unix()}),
		"nbf within leeway":     is.token(now, map[string]any{"email": "ada@example.com", "nbf": now.Add(jwt.DefaultLeeway / 2).Unix()}),
		"audience in a list":    is.token(now, map[string]any{"email": "ada@example.com", "aud": []string{"other", "api"}}),
		"jku ignored":           sign("RS256", rsaKey, map[string]any{"kid": "rsa1", "jku": "http://127.0.0.1:1/jwks"}, is.claims(now, map[string]any{"email": "ada@example.com"})),
	} {
		res := apptest.Get(t, s, "/me", auth(token)...)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", name, res.Body)
		assert.JSONEq(t, `{"sub":"ada","email":"ada@example.com","scopes":["todos:read"]}`, res.Body, name)
	}
}

// signRaw signs a header and a payload given as text with the issuer's
// RSA key.
func signRaw(t testing.TB, header, payload string) string {
	testKeys(t)
	input := b64([]byte(header)) + "." + b64([]byte(payload))
	return input + "." + b64(signature("RS256", rsaKey, input))
}

// A token naming no key is tried against the issuer's key for its
// algorithm when there is one, and refused when several would have to
// be tried.
func TestTokenWithoutKid(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"))
	now := time.Now()
	claims := is.claims(now, nil)
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(sign("ES256", ecKey, nil, claims))...).StatusCode, "one EC key")
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(sign("RS256", rsaKey, nil, claims))...).StatusCode, "one RSA key")

	two := newIssuer(t)
	two.publish(jwkOf("rsa1", &rsaKey.PublicKey), jwkOf("rsa2", &rsaRotate.PublicKey))
	s = newAPI(t, nil, jwt.Discovery(two.URL), jwt.Audience("api"))
	claims = two.claims(now, nil)
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(sign("RS256", rsaKey, map[string]any{"kid": "rsa1"}, claims))...).StatusCode)
	assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(sign("RS256", rsaKey, nil, claims))...).StatusCode, "two RSA keys")
}

// Keys of a set that are not public signature keys are left out: a
// symmetric key (a set is public: its secret is everyone's), an RSA key
// shorter than 2048 bits, a key for encryption.
func TestKeySetLeavesOut(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	weak, err := rsaGenerate(1024)
	require.NoError(t, err)
	secret := []byte(strings.Repeat("s", 32))
	enc := jwkOf("enc1", &rsaOther.PublicKey)
	enc["use"] = "enc"
	is.publish(jwkOf("rsa1", &rsaKey.PublicKey), map[string]any{"kty": "oct", "kid": "oct1", "k": b64(secret)},
		jwkOf("weak", &weak.PublicKey), enc)
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"))
	claims := is.claims(time.Now(), nil)
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(sign("RS256", rsaKey, map[string]any{"kid": "rsa1"}, claims))...).StatusCode)
	for name, token := range map[string]string{
		"HS256 with the set's symmetric key": sign("HS256", secret, map[string]any{"kid": "oct1"}, claims),
		"a short RSA key":                    sign("RS256", weak, map[string]any{"kid": "weak"}, claims),
		"a key for encryption":               sign("RS256", rsaOther, map[string]any{"kid": "enc1"}, claims),
	} {
		assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(token)...).StatusCode, name)
	}
}
