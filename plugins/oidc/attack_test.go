package oidc_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/apptest"
)

// fakeOP is a hand-made OpenID Provider for the attack cases: it
// authorizes at once, checks the code exchange (client secret, PKCE
// verifier) as a provider must, and signs ID tokens that tamper can
// change.
type fakeOP struct {
	*httptest.Server
	key    *rsa.PrivateKey
	mu     sync.Mutex
	codes  map[string]grant
	tamper func(claims map[string]any) // nil: honest tokens
	forge  bool                        // sign with another key
}

type grant struct {
	challenge, nonce, redirect string
}

func newFakeOP(t *testing.T) *fakeOP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	op := &fakeOP{key: key, codes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": op.URL, "authorization_endpoint": op.URL + "/authorize",
			"token_endpoint": op.URL + "/token", "jwks_uri": op.URL + "/keys",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{
			"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "todo-web" {
			http.Error(w, "bad request", 400)
			return
		}
		code := b64([]byte(q.Get("state") + "-code"))
		op.mu.Lock()
		op.codes[code] = grant{q.Get("code_challenge"), q.Get("nonce"), q.Get("redirect_uri")}
		op.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		op.mu.Lock()
		g, ok := op.codes[r.PostFormValue("code")]
		delete(op.codes, r.PostFormValue("code"))
		tamper, forge := op.tamper, op.forge
		op.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		if !ok || id != "todo-web" || secret != "web-secret" || b64(sum[:]) != g.challenge ||
			r.PostFormValue("redirect_uri") != g.redirect {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		claims := map[string]any{
			"iss": op.URL, "aud": "todo-web", "sub": "u-42", "preferred_username": "ann",
			"nonce": g.nonce, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
		}
		if tamper != nil {
			tamper(claims)
		}
		signer := op.key
		if forge {
			signer, _ = rsa.GenerateKey(rand.Reader, 2048)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": "opaque", "token_type": "Bearer", "expires_in": 3600,
			"id_token": sign(t, signer, claims),
		})
	})
	op.Server = httptest.NewServer(mux)
	t.Cleanup(op.Close)
	return op
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func sign(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	input := b64([]byte(`{"alg":"RS256","kid":"k1","typ":"JWT"}`)) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	require.NoError(t, err)
	return input + "." + b64(sig)
}

func (op *fakeOP) set(tamper func(map[string]any), forge bool) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.tamper, op.forge = tamper, forge
}

// begin starts a log-in in b and lets the provider authorize it: the
// callback URL it sends the browser to, not yet visited.
func begin(t *testing.T, b *browser, base string) string {
	t.Helper()
	res := b.step(t, "GET", base+"/login/oidc", nil)
	require.Contains(t, []int{302, 303}, res.StatusCode, res.Body)
	res = b.step(t, "GET", res.Header.Get("Location"), nil)
	require.Equal(t, 302, res.StatusCode, res.Body)
	return res.Header.Get("Location")
}

// withQuery returns target with key set to value ("" removes it).
func withQuery(t *testing.T, target, key, value string) string {
	u, err := url.Parse(target)
	require.NoError(t, err)
	q := u.Query()
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// refused checks a refused callback: the status, the error shape, no
// session cookie, and no session.
func refused(t *testing.T, b *browser, base string, res *apptest.Response, status int, code string) {
	t.Helper()
	assert.Equal(t, status, res.StatusCode, res.Body)
	var body struct {
		StatusCode int    `json:"statusCode"`
		Code       string `json:"code"`
		Error      string `json:"error"`
		Message    string `json:"message"`
	}
	res.JSON(t, &body)
	assert.Equal(t, status, body.StatusCode)
	assert.Equal(t, code, body.Code)
	assert.NotEmpty(t, body.Error)
	assert.NotEmpty(t, body.Message)
	assert.Nil(t, cookieNamed(res, "sid"), "no session cookie")
	assert.Equal(t, 401, b.step(t, "GET", base+"/me", nil).StatusCode, "no session")
}

// TestCallbackAttacks: every callback that is not the honest end of a
// log-in this browser started is refused, in the error shape, without
// a session.
func TestCallbackAttacks(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret")

	t.Run("honest", func(t *testing.T) {
		b := newBrowser(t)
		res := b.step(t, "GET", begin(t, b, base), nil)
		require.Equal(t, 303, res.StatusCode, res.Body)
		require.NotNil(t, cookieNamed(res, "sid"))
		res = b.step(t, "GET", base+"/me", nil)
		assert.Equal(t, "ann u-42", res.Body)
	})
	t.Run("missing state", func(t *testing.T) {
		b := newBrowser(t)
		res := b.step(t, "GET", withQuery(t, begin(t, b, base), "state", ""), nil)
		refused(t, b, base, res, 403, "FST_OIDC_STATE")
	})
	t.Run("forged state", func(t *testing.T) {
		b := newBrowser(t)
		res := b.step(t, "GET", withQuery(t, begin(t, b, base), "state", b64([]byte("forged-state-forged-state-forged"))), nil)
		refused(t, b, base, res, 403, "FST_OIDC_STATE")
	})
	t.Run("no log-in started", func(t *testing.T) {
		b := newBrowser(t)
		res := b.step(t, "GET", base+"/login/oidc/callback?code=x&state=y", nil)
		refused(t, b, base, res, 403, "FST_OIDC_STATE")
	})
	t.Run("foreign state", func(t *testing.T) {
		// The attacker's own log-in, finished in the victim's browser
		// (log-in CSRF): with a log-in of the victim's in progress, and
		// without.
		attacker, victim, fresh := newBrowser(t), newBrowser(t), newBrowser(t)
		cb := begin(t, attacker, base)
		begin(t, victim, base)
		refused(t, victim, base, victim.step(t, "GET", cb, nil), 403, "FST_OIDC_STATE")
		refused(t, fresh, base, fresh.step(t, "GET", cb, nil), 403, "FST_OIDC_STATE")
	})
	t.Run("replayed", func(t *testing.T) {
		b := newBrowser(t)
		cb := begin(t, b, base)
		flow := b.Jar.Cookies(mustURL(t, base+"/login/oidc/callback"))
		require.Len(t, flow, 1)
		require.Equal(t, 303, b.step(t, "GET", cb, nil).StatusCode)
		// The same callback with the flow cookie it had, in a browser
		// without the session.
		thief := newBrowser(t)
		thief.Jar.SetCookies(mustURL(t, base+"/login/oidc/callback"), flow)
		refused(t, thief, base, thief.step(t, "GET", cb, nil), 403, "FST_OIDC_STATE")
	})
	t.Run("access denied", func(t *testing.T) {
		b := newBrowser(t)
		cb := withQuery(t, withQuery(t, begin(t, b, base), "code", ""), "error", "access_denied")
		cb = withQuery(t, cb, "error_description", strings.Repeat("<script>", 1000))
		res := b.step(t, "GET", cb, nil)
		refused(t, b, base, res, 403, "FST_OIDC_DENIED")
		assert.NotContains(t, res.Body, "script")
		assert.NotContains(t, res.Body, "access_denied")
	})
	t.Run("no code", func(t *testing.T) {
		b := newBrowser(t)
		refused(t, b, base, b.step(t, "GET", withQuery(t, begin(t, b, base), "code", ""), nil), 400, "FST_OIDC_TOKEN")
	})
	t.Run("unknown code", func(t *testing.T) {
		b := newBrowser(t)
		refused(t, b, base, b.step(t, "GET", withQuery(t, begin(t, b, base), "code", "stolen"), nil), 401, "FST_OIDC_TOKEN")
	})
}

// TestIDTokenChecks: an ID token that is not for this log-in, this
// client, from this issuer, current and signed by the issuer is
// refused.
func TestIDTokenChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		tamper func(map[string]any)
		forge  bool
	}{
		{"another nonce", func(c map[string]any) { c["nonce"] = "another" }, false},
		{"no nonce", func(c map[string]any) { delete(c, "nonce") }, false},
		{"another audience", func(c map[string]any) { c["aud"] = "another-client" }, false},
		{"another issuer", func(c map[string]any) { c["iss"] = "https://evil.example" }, false},
		{"expired", func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }, false},
		{"no subject", func(c map[string]any) { delete(c, "sub") }, false},
		{"forged signature", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			op := newFakeOP(t)
			op.set(tc.tamper, tc.forge)
			ln, base := listen(t)
			serveRP(t, ln, base, op.URL, "web-secret")
			b := newBrowser(t)
			refused(t, b, base, b.step(t, "GET", begin(t, b, base), nil), 401, "FST_OIDC_TOKEN")
		})
	}
}

// TestSessionFixation: a log-in never keeps the session id the browser
// came with, planted or its own, and the old one stops working.
func TestSessionFixation(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret")
	u := mustURL(t, base+"/")

	// A session id planted by an attacker, which the server never made.
	b := newBrowser(t)
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: "planted-by-the-attacker", Path: "/"}})
	res := b.step(t, "GET", begin(t, b, base), nil)
	require.Equal(t, 303, res.StatusCode, res.Body)
	first := cookieNamed(res, "sid")
	require.NotNil(t, first)
	assert.NotEqual(t, "planted-by-the-attacker", first.Value)

	// A live session id the attacker knows (their own log-in's, planted
	// in the victim's browser): the victim's log-in moves to a new one,
	// and the planted one ends.
	victim := newBrowser(t)
	victim.Jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: first.Value, Path: "/"}})
	res = victim.step(t, "GET", begin(t, victim, base), nil)
	require.Equal(t, 303, res.StatusCode, res.Body)
	second := cookieNamed(res, "sid")
	require.NotNil(t, second)
	assert.NotEqual(t, first.Value, second.Value)
	assert.Equal(t, 401, b.step(t, "GET", base+"/me", nil).StatusCode, "the planted session ended")
	assert.Equal(t, 200, victim.step(t, "GET", base+"/me", nil).StatusCode)
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
