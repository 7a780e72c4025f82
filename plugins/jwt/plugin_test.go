package jwt_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/jwt"
)

func TestAnswers(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"))
	now := time.Now()
	tests := []struct {
		name      string
		method    string
		path      string
		header    []string
		status    int
		challenge string
		body      string
	}{
		{"no header", "GET", "/me", nil, 401, `Bearer`,
			`{"statusCode":401,"error":"Unauthorized","message":"Missing bearer token"}`},
		{"empty header", "GET", "/me", []string{"Authorization", ""}, 401, `Bearer`,
			`{"statusCode":401,"error":"Unauthorized","message":"Missing bearer token"}`},
		{"basic scheme", "GET", "/me", []string{"Authorization", "Basic " + is.token(now, nil)}, 401, `Bearer error="invalid_token"`,
			`{"statusCode":401,"code":"invalid_token","error":"Unauthorized","message":"Invalid token"}`},
		{"two headers", "GET", "/me", append(auth(is.token(now, nil)), auth(is.token(now, nil))...), 400, `Bearer error="invalid_request"`,
			`{"statusCode":400,"code":"invalid_request","error":"Bad Request","message":"More than one Authorization header"}`},
		{"lower-case scheme", "GET", "/me", []string{"Authorization", "bearer " + is.token(now, nil)}, 200, "",
			`{"sub":"ada","email":"","scopes":["todos:read"]}`},
		{"scope missing", "POST", "/todos", auth(is.token(now, nil)), 403, `Bearer error="insufficient_scope", scope="todos:write"`,
			`{"statusCode":403,"code":"insufficient_scope","error":"Forbidden","message":"Insufficient scope"}`},
		{"scope granted", "POST", "/todos", auth(is.token(now, map[string]any{"scope": "todos:read todos:write"})), 200, "",
			`created by ada`},
		{"scp list granted", "POST", "/todos", auth(is.token(now, map[string]any{"scope": nil, "scp": []string{"todos:write"}})), 200, "",
			`created by ada`},
		{"scope as a list granted", "POST", "/todos", auth(is.token(now, map[string]any{"scope": []string{"a", "todos:write"}})), 200, "",
			`created by ada`},
		{"scope of another type", "POST", "/todos", auth(is.token(now, map[string]any{"scope": 3})), 401, `Bearer error="invalid_token"`,
			`{"statusCode":401,"code":"invalid_token","error":"Unauthorized","message":"Invalid token"}`},
		{"invalid token beats scope", "POST", "/todos", auth("x.y.z"), 401, `Bearer error="invalid_token"`,
			`{"statusCode":401,"code":"invalid_token","error":"Unauthorized","message":"Invalid token"}`},
		{"sibling open", "GET", "/public", nil, 200, "", `open`},
		{"nested guarded", "GET", "/nested", nil, 401, `Bearer`,
			`{"statusCode":401,"error":"Unauthorized","message":"Missing bearer token"}`},
		{"nested sees the claims", "GET", "/nested", auth(is.token(now, nil)), 200, "", `ada`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := apptest.Do(t, s, tt.method, tt.path, nil, tt.header...)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.challenge, res.Header.Get("Www-Authenticate"))
			if strings.HasPrefix(tt.body, "{") {
				assert.JSONEq(t, tt.body, res.Body)
			} else {
				assert.Equal(t, tt.body, res.Body)
			}
		})
	}
}

// With problem details, the refusals are problem details too.
func TestProblemDetails(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := newAPI(t, []app.Option{app.WithProblemDetails()}, jwt.Discovery(is.URL), jwt.Audience("api"))
	res := apptest.Do(t, s, "POST", "/todos", nil, auth(is.token(time.Now(), nil))...)
	assert.Equal(t, 403, res.StatusCode)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
	assert.Contains(t, res.Body, `"status":403`)
	assert.Equal(t, `Bearer error="insufficient_scope", scope="todos:write"`, res.Header.Get("Www-Authenticate"))
	res = apptest.Get(t, s, "/me", auth("a.b.c")...)
	assert.Equal(t, 401, res.StatusCode)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
}

// A route asking for scopes where no JWT plugin guards it fails Ready,
// as does a handler asking for the claims there.
func TestReadyChecks(t *testing.T) {
	t.Parallel()
	secret := []byte(strings.Repeat("s", 32))
	t.Run("scopes in a sibling", func(t *testing.T) {
		s := apptest.New(t)
		s.Register(func(s *app.Server) error {
			return s.Register(jwt.Plugin[struct{}](jwt.Secret(secret)))
		}, app.Name("guarded"))
		s.Register(func(s *app.Server) error {
			return s.Get("/x", func() (string, error) { return "", nil }, jwt.Scopes("a"))
		}, app.Name("open"))
		err := s.Ready()
		require.ErrorIs(t, err, app.ErrUnreadConfig)
		assert.Contains(t, err.Error(), "GET /x")
	})
	t.Run("claims in a sibling", func(t *testing.T) {
		s := apptest.New(t)
		s.Register(func(s *app.Server) error {
			return s.Register(jwt.Plugin[struct{}](jwt.Secret(secret)))
		}, app.Name("guarded"))
		s.Register(func(s *app.Server) error {
			return s.Get("/x", func(*jwt.Claims[struct{}]) (string, error) { return "", nil })
		}, app.Name("open"))
		require.Error(t, s.Ready())
	})
	for name, scopes := range map[string][]string{"none": nil, "empty": {""}, "with a quote": {`a"b`}, "with a space": {"a b"}} {
		t.Run("scopes "+name, func(t *testing.T) {
			s := apptest.New(t)
			s.Register(jwt.Plugin[struct{}](jwt.Secret(secret)))
			s.Get("/x", func() (string, error) { return "", nil }, jwt.Scopes(scopes...))
			require.ErrorContains(t, s.Ready(), "jwt.Scopes")
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	testKeys(t)
	secret := []byte(strings.Repeat("s", 32))
	tests := []struct {
		name string
		opts []jwt.Option
		want error
		text string
	}{
		{"nothing", nil, jwt.ErrNoKeys, ""},
		{"discovery without audience", []jwt.Option{jwt.Discovery("https://id.example")}, jwt.ErrNoAudience, ""},
		{"jwks without issuer", []jwt.Option{jwt.JWKS("https://id.example/keys"), jwt.Audience("a")}, jwt.ErrNoIssuer, ""},
		{"two sources", []jwt.Option{jwt.Discovery("https://id.example"), jwt.Secret(secret), jwt.Audience("a")}, jwt.ErrKeySources, ""},
		{"short secret", []jwt.Option{jwt.Secret([]byte("short"))}, nil, "jwt.Secret: a secret of 5 bytes is too short"},
		{"short RSA key", []jwt.Option{jwt.PublicKey(shortRSA(t))}, nil, "jwt.PublicKey: an RSA key of 1024 bits is too short"},
		{"private key", []jwt.Option{jwt.PublicKey(rsaKey)}, nil, "not a public key"},
		{"relative URL", []jwt.Option{jwt.Discovery("/id"), jwt.Audience("a")}, nil, "jwt.Discovery: invalid issuer URL"},
		{"leeway", []jwt.Option{jwt.Secret(secret), jwt.Leeway(time.Hour)}, nil, "jwt.Leeway"},
		{"issuers differ", []jwt.Option{jwt.Discovery("https://a.example"), jwt.Issuer("https://b.example"), jwt.Audience("a")}, nil, "differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.Register(jwt.Plugin[struct{}](tt.opts...))
			err := s.Ready()
			require.Error(t, err)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			assert.Contains(t, err.Error(), tt.text)
		})
	}
}

// The static key option: a service that signs its own HS256 tokens.
func TestSecret(t *testing.T) {
	t.Parallel()
	testKeys(t)
	secret := []byte("a secret of thirty-two bytes....")
	s := newAPI(t, nil, jwt.Secret(secret), jwt.Require("sub"))
	now := time.Now()
	claims := map[string]any{"sub": "ada", "exp": now.Add(time.Hour).Unix(), "email": "a@example.com"}
	res := apptest.Get(t, s, "/me", auth(sign("HS256", secret, map[string]any{"kid": "whatever"}, claims))...)
	require.Equal(t, 200, res.StatusCode, res.Body)
	assert.JSONEq(t, `{"sub":"ada","email":"a@example.com","scopes":null}`, res.Body)
	for name, token := range map[string]string{
		"other secret": sign("HS256", []byte(strings.Repeat("x", 32)), nil, claims),
		"none":         sign("none", nil, nil, claims),
		"no sub":       sign("HS256", secret, nil, map[string]any{"exp": now.Add(time.Hour).Unix()}),
		"HS512":        sign("HS512", secret, nil, claims),
		"RS256 no key": sign("RS256", rsaOther, nil, claims),
	} {
		res := apptest.Get(t, s, "/me", auth(token)...)
		assert.Equal(t, 401, res.StatusCode, name)
	}
}

// A public key given as an option verifies; HS256 with it as the secret
// does not.
func TestPublicKey(t *testing.T) {
	t.Parallel()
	testKeys(t)
	s := newAPI(t, nil, jwt.PublicKey(&ecKey.PublicKey), jwt.Issuer("me"))
	claims := map[string]any{"iss": "me", "sub": "ada", "exp": time.Now().Add(time.Hour).Unix()}
	res := apptest.Get(t, s, "/me", auth(sign("ES256", ecKey, nil, claims))...)
	require.Equal(t, 200, res.StatusCode, res.Body)
	der, _ := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	res = apptest.Get(t, s, "/me", auth(sign("HS256", der, nil, claims))...)
	assert.Equal(t, 401, res.StatusCode)
}

// However many tokens naming unknown keys arrive, the key set is fetched
// at most once a second.
func TestUnknownKidFetchLimit(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	clock := newClock()
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"), jwt.Clock(clock.now))
	now := clock.now()
	res := apptest.Get(t, s, "/me", auth(is.token(now, nil))...)
	require.Equal(t, 200, res.StatusCode) // the first fetch is done
	require.EqualValues(t, 1, is.jwksHits.Load())

	flood := func(n int) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				token := sign("RS256", rsaOther, map[string]any{"kid": fmt.Sprint("unknown-", i)}, is.claims(now, nil))
				res := apptest.Get(t, s, "/me", auth(token)...)
				assert.Equal(t, 401, res.StatusCode)
			})
		}
		wg.Wait()
	}
	flood(50) // within a second of the first fetch: none
	assert.EqualValues(t, 1, is.jwksHits.Load())
	clock.advance(time.Second)
	flood(50)
	assert.EqualValues(t, 2, is.jwksHits.Load())
	flood(50)
	assert.EqualValues(t, 2, is.jwksHits.Load())

	// A rotated key is found by the first token naming it, once the
	// second has passed.
	is.publish(jwkOf("rsa2", &rsaRotate.PublicKey))
	rotated := sign("RS256", rsaRotate, map[string]any{"kid": "rsa2"}, is.claims(now, nil))
	assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(rotated)...).StatusCode)
	assert.EqualValues(t, 2, is.jwksHits.Load())
	clock.advance(time.Second)
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(rotated)...).StatusCode)
	assert.EqualValues(t, 3, is.jwksHits.Load())
	// The old key left the set: its tokens no longer verify.
	assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(is.token(now, nil))...).StatusCode)
}

// controlledWait is a background refresh whose sleeps the test ends:
// each call reports its delay on waits and sleeps until wake.
type controlledWait struct {
	waits chan time.Duration
	wake  chan struct{}
}

func newControlledWait() *controlledWait {
	return &controlledWait{waits: make(chan time.Duration), wake: make(chan struct{})}
}

func (w *controlledWait) wait(ctx context.Context, d time.Duration) bool {
	select {
	case w.waits <- d:
	case <-ctx.Done():
		return false
	}
	select {
	case <-w.wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// Keys fetched keep verifying while the key set cannot be fetched; the
// background refresh follows the caching headers and retries failures
// sooner.
func TestKeysSurviveIssuerDown(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.cacheControl = "public, max-age=600"
	clock := newClock()
	w := newControlledWait()
	s := newAPI(t, nil, jwt.Discovery(is.URL), jwt.Audience("api"), jwt.Clock(clock.now), jwt.Wait(w.wait))
	assert.Equal(t, 10*time.Minute, <-w.waits, "the refresh follows max-age")
	now := clock.now()
	token := is.token(now, nil)
	require.Equal(t, 200, apptest.Get(t, s, "/me", auth(token)...).StatusCode)

	is.down.Store(true)
	w.wake <- struct{}{} // the scheduled refresh fails
	assert.Equal(t, time.Second, <-w.waits, "a failure is retried after a second")
	w.wake <- struct{}{}
	assert.Equal(t, 2*time.Second, <-w.waits, "then after twice as long")
	assert.EqualValues(t, 3, is.jwksHits.Load())
	clock.advance(time.Second)
	unknown := sign("RS256", rsaOther, map[string]any{"kid": "new"}, is.claims(now, nil))
	assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(unknown)...).StatusCode) // its fetch fails too
	assert.EqualValues(t, 4, is.jwksHits.Load())
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(token)...).StatusCode, "the known key still verifies")

	is.down.Store(false)
	w.wake <- struct{}{}
	assert.Equal(t, 10*time.Minute, <-w.waits, "back to the caching headers once a fetch succeeds")
}

// The jwks readiness check fails until the keys have been fetched.
func TestHealthCheck(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.down.Store(true)
	checks := health.New()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		return s.Register(jwt.Plugin[struct{}](jwt.Discovery(is.URL), jwt.Audience("api"), jwt.Health(checks)))
	})
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, checks.Wait(ctx))
	report, ready := checks.Report()
	assert.False(t, ready)
	assert.Equal(t, "no key fetched from the issuer yet", report.Checks[jwt.CheckName])

	is.down.Store(false) // the retry, a second later, succeeds
	require.Eventually(t, func() bool { _, ready := checks.Report(); return ready }, 30*time.Second, 10*time.Millisecond)
	res := apptest.Get(t, s, "/readyz")
	assert.Equal(t, 200, res.StatusCode, res.Body)
	assert.Contains(t, res.Body, `"jwks":"ok"`)
}

// Refusals log at debug with a reason, never the token.
func TestTokensNeverLogged(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	core, logs := observer.New(zapcore.DebugLevel)
	s := newAPI(t, []app.Option{app.WithLogger(zap.New(core))}, jwt.Discovery(is.URL), jwt.Audience("api"))
	now := time.Now()
	tokens := []string{
		is.token(now, map[string]any{"aud": "other"}),
		is.token(now, map[string]any{"exp": now.Add(-time.Hour).Unix()}),
		sign("none", nil, nil, is.claims(now, nil)),
		"garbage-token-value",
	}
	for _, tok := range tokens {
		require.Equal(t, 401, apptest.Get(t, s, "/me", auth(tok)...).StatusCode)
	}
	var reasons []string
	for _, e := range logs.All() {
		text := e.Message + fmt.Sprint(e.ContextMap())
		for _, tok := range tokens {
			for _, part := range strings.Split(tok, ".") {
				if len(part) > 8 {
					assert.NotContains(t, text, part)
				}
			}
		}
		assert.Less(t, e.Level, zapcore.ErrorLevel, "a refusal is the client's mistake: %s", e.Message)
		if strings.HasPrefix(e.Message, "unauthorized: ") {
			assert.Equal(t, zapcore.DebugLevel, e.Level)
			reasons = append(reasons, strings.TrimPrefix(e.Message, "unauthorized: "))
		}
	}
	assert.Equal(t, []string{"token for another audience", "token expired", "malformed token", "malformed token"}, reasons)
}

// Close stops the background refresh, even while a fetch hangs.
func TestCloseStopsRefresh(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	defer close(hang)
	srv := newHangingIssuer(t, hang)
	s := app.New()
	s.Register(jwt.Plugin[struct{}](jwt.Discovery(srv), jwt.Audience("api")))
	require.NoError(t, s.Ready())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
}

func newHangingIssuer(t testing.TB, hang <-chan struct{}) string {
	is := newIssuer(t)
	is.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	return is.URL
}

func shortRSA(t testing.TB) any {
	k, err := rsaGenerate(1024)
	require.NoError(t, err)
	return &k.PublicKey
}

// The plugin declares its scheme where it guards routes, and each
// route's scopes with it.
func TestOpenAPI(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	for name, tt := range map[string]struct {
		opts   []jwt.Option
		scheme map[string]any
	}{
		"discovery": {[]jwt.Option{jwt.Discovery(is.URL), jwt.Audience("api")},
			map[string]any{"type": "openIdConnect", "openIdConnectUrl": is.URL + "/.well-known/openid-configuration"}},
		"secret": {[]jwt.Option{jwt.Secret([]byte(strings.Repeat("s", 32)))},
			map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
	} {
		t.Run(name, func(t *testing.T) {
			s := newAPI(t, nil, tt.opts...)
			d, err := openapi.Build(s.Routes(), openapi.Info{})
			require.NoError(t, err)
			var doc struct {
				Paths      map[string]map[string]struct{ Security []map[string][]string }
				Components struct{ SecuritySchemes map[string]map[string]any }
			}
			require.NoError(t, json.Unmarshal(d.JSON(), &doc))
			assert.Equal(t, tt.scheme, doc.Components.SecuritySchemes[jwt.SchemeName])
			assert.Equal(t, []map[string][]string{{jwt.SchemeName: {"todos:write"}}}, doc.Paths["/todos"]["post"].Security)
			assert.Equal(t, []map[string][]string{{jwt.SchemeName: {}}}, doc.Paths["/me"]["get"].Security)
			assert.Empty(t, doc.Paths["/public"]["get"].Security)
		})
	}
}

// Sibling contexts may each have their plugin, with keys of their own;
// a second plugin below the first fails Ready: its routes' tokens would
// have to pass both.
func TestOnePluginPerBranch(t *testing.T) {
	t.Parallel()
	a, b := []byte(strings.Repeat("a", 32)), []byte(strings.Repeat("b", 32))
	whoami := func(c *jwt.Claims[struct{}]) (string, error) { return c.Subject, nil }
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[struct{}](jwt.Secret(a)))
		return s.Get("/a", whoami)
	})
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[struct{}](jwt.Secret(b)))
		return s.Get("/b", whoami)
	})
	require.NoError(t, s.Ready())
	claims := map[string]any{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()}
	assert.Equal(t, 200, apptest.Get(t, s, "/a", auth(sign("HS256", a, nil, claims))...).StatusCode)
	assert.Equal(t, 401, apptest.Get(t, s, "/a", auth(sign("HS256", b, nil, claims))...).StatusCode)
	assert.Equal(t, 200, apptest.Get(t, s, "/b", auth(sign("HS256", b, nil, claims))...).StatusCode)

	nested := apptest.New(t)
	nested.Register(jwt.Plugin[struct{}](jwt.Secret(a)))
	nested.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[struct{}](jwt.Secret(b)))
		return s.Get("/x", whoami)
	}, app.Name("inner"))
	err := nested.Ready()
	var pe *app.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "plugin jwt (root > inner)")
}

// Scheme and Optional, as an API like RealWorld's needs them: tokens in
// "Authorization: Token <jwt>", and routes anyone may call.
func TestSchemeAndOptional(t *testing.T) {
	t.Parallel()
	secret := []byte(strings.Repeat("s", 32))
	s := apptest.New(t)
	s.Register(jwt.Plugin[struct{}](jwt.Secret(secret), jwt.Scheme("Token"), jwt.Optional()))
	s.Get("/articles", func(c *jwt.Claims[struct{}]) (string, error) {
		if c == nil {
			return "anonymous", nil
		}
		return c.Subject, nil
	})
	s.Post("/articles", func(c *jwt.Claims[struct{}]) (string, error) { return c.Subject, nil }, jwt.Scopes("write"))
	require.NoError(t, s.Ready())
	claims := map[string]any{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix(), "scope": "write"}
	token := sign("HS256", secret, nil, claims)
	tests := []struct {
		name, method string
		header       []string
		status       int
		body         string
		challenge    string
	}{
		{"anonymous", "GET", nil, 200, "anonymous", ""},
		{"token scheme", "GET", []string{"Authorization", "Token " + token}, 200, "ada", ""},
		{"lower-case scheme", "GET", []string{"Authorization", "token " + token}, 200, "ada", ""},
		{"bearer scheme", "GET", []string{"Authorization", "Bearer " + token}, 401, "", `Token error="invalid_token"`},
		{"invalid token", "GET", []string{"Authorization", "Token x.y.z"}, 401, "", `Token error="invalid_token"`},
		{"scopes need a token", "POST", nil, 401, "", "Token"},
		{"scopes granted", "POST", []string{"Authorization", "Token " + token}, 200, "ada", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := apptest.Do(t, s, tt.method, "/articles", nil, tt.header...)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.challenge, res.Header.Get("Www-Authenticate"))
			if tt.status == 200 {
				assert.Equal(t, tt.body, res.Body)
			}
		})
	}
	bad := apptest.New(t)
	bad.Register(jwt.Plugin[struct{}](jwt.Secret(secret), jwt.Scheme("a b")))
	assert.ErrorContains(t, bad.Ready(), `jwt.Scheme: invalid scheme "a b"`)
}

// The refusals go through the route's error handler: an API with an
// error shape of its own answers them in it, the challenge kept.
func TestCustomErrorHandler(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.SetErrorHandler(func(err error, rep *httpx.Reply) error {
			var he *httpx.Error
			if errors.As(err, &he) {
				rep.Code(he.StatusCode)
			}
			return rep.Send(map[string]any{"errors": map[string][]string{"body": {err.Error()}}})
		})
		s.Register(jwt.Plugin[struct{}](jwt.Secret([]byte(strings.Repeat("s", 32)))))
		return s.Get("/x", func() (string, error) { return "", nil })
	})
	res := apptest.Get(t, s, "/x", auth("a.b.c")...)
	assert.Equal(t, 401, res.StatusCode)
	assert.JSONEq(t, `{"errors":{"body":["401 invalid_token: Invalid token"]}}`, res.Body)
	assert.Equal(t, `Bearer error="invalid_token"`, res.Header.Get("Www-Authenticate"))
}

// Keys from a JWK set given by its URL, the issuer given beside it.
func TestJWKSURL(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := newAPI(t, nil, jwt.JWKS(is.URL+"/jwks"), jwt.Issuer(is.URL), jwt.Audience("api"))
	now := time.Now()
	assert.Equal(t, 200, apptest.Get(t, s, "/me", auth(is.token(now, nil))...).StatusCode)
	assert.Equal(t, 401, apptest.Get(t, s, "/me", auth(is.token(now, map[string]any{"iss": "https://other.example"}))...).StatusCode)
	d, err := openapi.Build(s.Routes(), openapi.Info{})
	require.NoError(t, err)
	assert.Contains(t, string(d.JSON()), `"bearerFormat": "JWT"`)
}
