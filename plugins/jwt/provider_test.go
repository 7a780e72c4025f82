package jwt_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/oidctest"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// provider is a running OpenID Provider: the provider of
// github.com/zitadel/oidc in internal/oidcop.
type provider struct {
	issuer string
}

// startProvider starts the provider on a free port, issuing access
// tokens for audience; it is stopped when t ends.
func startProvider(t *testing.T, audience string) *provider {
	return &provider{issuer: oidctest.Start(t, "-audience", audience)}
}

// token gets an access token by the client-credentials grant, for the
// example's service user.
func (p *provider) token(t *testing.T, scope string) string {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	req, err := http.NewRequest("POST", p.issuer+"oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("sid1", "verysecret")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "Bearer", body.TokenType)
	require.Equal(t, 2, strings.Count(body.AccessToken, "."), "a JWT access token")
	return body.AccessToken
}

type serviceClaims struct {
	ClientID string `json:"client_id"`
}

// TestRealProvider verifies the access tokens of a real OpenID Provider,
// found through its discovery document, over real HTTP.
func TestRealProvider(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "todos-api")
	checks := health.New()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[serviceClaims](jwt.Discovery(p.issuer), jwt.Audience("todos-api"), jwt.Health(checks)))
		s.Get("/todos", func(c *jwt.Claims[serviceClaims]) (map[string]any, error) {
			return map[string]any{"sub": c.Subject, "client": c.Custom.ClientID, "iss": c.Issuer, "scopes": c.Scopes}, nil
		}, jwt.Scopes("todos:read"))
		return s.Post("/todos", func(c *jwt.Claims[serviceClaims]) (string, error) { return "ok", nil }, jwt.Scopes("todos:write"))
	}, app.Name("api"))
	s.Register(checks.Routes())
	base := apptest.Serve(t, s)

	read := p.token(t, "todos:read")
	res := apptest.Fetch(t, "GET", base+"/todos", auth(read)...)
	require.Equal(t, 200, res.StatusCode, res.Body)
	assert.JSONEq(t, `{"sub":"sid1","client":"sid1","iss":"`+p.issuer+`","scopes":["todos:read"]}`, res.Body)
	res = apptest.Fetch(t, "POST", base+"/todos", auth(read)...)
	assert.Equal(t, 403, res.StatusCode)
	assert.Equal(t, `Bearer error="insufficient_scope", scope="todos:write"`, res.Header.Get("Www-Authenticate"))
	res = apptest.Fetch(t, "POST", base+"/todos", auth(p.token(t, "todos:read todos:write"))...)
	assert.Equal(t, 200, res.StatusCode, res.Body)

	// The provider's token with a flipped signature byte, and its token
	// for another API.
	sig := []byte(read)
	sig[len(sig)-5] ^= 1
	res = apptest.Fetch(t, "GET", base+"/todos", auth(string(sig))...)
	assert.Equal(t, 401, res.StatusCode)
	other := startProvider(t, "other-api")
	res = apptest.Fetch(t, "GET", base+"/todos", auth(other.token(t, "todos:read"))...)
	assert.Equal(t, 401, res.StatusCode, "another issuer, another audience")

	require.Eventually(t, func() bool { _, ready := checks.Report(); return ready }, time.Minute, 10*time.Millisecond)
}
