package jwt_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Keys are made once: RSA generation costs a fraction of a second.
var (
	keysOnce  sync.Once
	rsaKey    *rsa.PrivateKey
	rsaOther  *rsa.PrivateKey
	ecKey     *ecdsa.PrivateKey
	ecAttack  *ecdsa.PrivateKey
	rsaRotate *rsa.PrivateKey
)

func testKeys(t testing.TB) {
	keysOnce.Do(func() {
		var err error
		gen := func() *rsa.PrivateKey {
			k, e := rsa.GenerateKey(rand.Reader, 2048)
			if e != nil {
				err = e
			}
			return k
		}
		rsaKey, rsaOther, rsaRotate = gen(), gen(), gen()
		ecKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ecAttack, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
	})
	require.NotNil(t, rsaKey)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkOf is the public JWK of key with id kid.
func jwkOf(kid string, key crypto.PublicKey) map[string]any {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		b, err := k.Bytes()
		if err != nil {
			panic(err)
		}
		return map[string]any{"kty": "EC", "kid": kid, "use": "sig", "crv": "P-256", "x": b64(b[1:33]), "y": b64(b[33:])}
	}
	panic("unsupported key")
}

// sign makes a compact JWS of claims with header (alg and kid added
// unless header has them), signed by key as alg says; "none" signs
// nothing.
func sign(alg string, key any, header, claims map[string]any) string {
	h := map[string]any{"alg": alg, "typ": "JWT"}
	for k, v := range header {
		h[k] = v
	}
	hb, _ := json.Marshal(h)
	cb, _ := json.Marshal(claims)
	input := b64(hb) + "." + b64(cb)
	return input + "." + b64(signature(alg, key, input))
}

func signature(alg string, key any, input string) []byte {
	sum := sha256.Sum256([]byte(input))
	switch alg {
	case "RS256":
		s, err := rsa.SignPKCS1v15(nil, key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
		if err != nil {
			panic(err)
		}
		return s
	case "PS256":
		s, err := rsa.SignPSS(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, sum[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		if err != nil {
			panic(err)
		}
		return s
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, key.(*ecdsa.PrivateKey), sum[:])
		if err != nil {
			panic(err)
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out
	case "HS256":
		m := hmac.New(sha256.New, key.([]byte))
		m.Write([]byte(input))
		return m.Sum(nil)
	}
	return nil // "none" and the like
}

// issuer is a hand-made OpenID provider: a discovery document and a JWK
// set, which tests can change, break and count.
type issuer struct {
	*httptest.Server
	mu           sync.Mutex
	keys         []map[string]any
	cacheControl string
	down         atomic.Bool
	jwksHits     atomic.Int64
}

func newIssuer(t testing.TB) *issuer {
	testKeys(t)
	is := &issuer{keys: []map[string]any{jwkOf("rsa1", &rsaKey.PublicKey), jwkOf("ec1", &ecKey.PublicKey)}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		if is.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		is.mu.Lock()
		body, _ := json.Marshal(map[string]any{"keys": is.keys})
		cc := is.cacheControl
		is.mu.Unlock()
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

// publish replaces the key set the issuer serves.
func (is *issuer) publish(keys ...map[string]any) {
	is.mu.Lock()
	is.keys = keys
	is.mu.Unlock()
}

// claims are valid claims of the issuer for audience "api", at now.
func (is *issuer) claims(now time.Time, extra map[string]any) map[string]any {
	c := map[string]any{"iss": is.URL, "sub": "ada", "aud": "api", "exp": now.Add(time.Hour).Unix(),
		"iat": now.Unix(), "scope": "todos:read"}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

// token is a valid RS256 token of the issuer, with extra claims.
func (is *issuer) token(now time.Time, extra map[string]any) string {
	return sign("RS256", rsaKey, map[string]any{"kid": "rsa1"}, is.claims(now, extra))
}

// fakeClock is a clock tests move.
type fakeClock struct{ ns atomic.Int64 }

func newClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// auth is the Authorization header of a bearer token.
func auth(token string) []string { return []string{"Authorization", "Bearer " + token} }

func rsaGenerate(bits int) (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, bits) }
