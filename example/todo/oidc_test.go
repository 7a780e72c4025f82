package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/oidctest"
)

// startOIDCProvider starts the OpenID Provider of github.com/zitadel/oidc
// that plugins/jwt's and plugins/oidc's tests use, with the web client
// todo-web (secret web-secret) redirecting to
// http://todo.test/login/oidc/callback; it returns the issuer URL.
func startOIDCProvider(t *testing.T) string {
	return oidctest.Start(t, "-web-client", "todo-web:web-secret", "-redirect-uris", "http://todo.test/login/oidc/callback")
}

// oidcBrowser is a client with a cookie jar that follows no redirect.
type oidcBrowser struct{ c *http.Client }

func newOIDCBrowser(t *testing.T) *oidcBrowser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &oidcBrowser{&http.Client{Jar: jar, Timeout: hangLimit,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *oidcBrowser) do(t *testing.T, method, target, ctype, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	require.NoError(t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{status: res.StatusCode, header: res.Header, body: string(raw)}
}

// logInAtProvider starts a log-in at the service, logs in on the
// provider's page, and returns the callback the provider sends the
// browser to, as the path and query to send to base (the service's
// public URL, http://todo.test, is a proxy's name for it).
func logInAtProvider(t *testing.T, b *oidcBrowser, base, issuer string) string {
	t.Helper()
	res := b.do(t, "GET", base+"/login/oidc", "", "", "Accept", "text/html", "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate")
	require.Contains(t, []int{302, 303}, res.status, res.body)
	auth := res.header.Get("Location")
	require.True(t, strings.HasPrefix(auth, issuer), auth)
	cb, err := url.Parse(oidctest.LogIn(t, b.c, auth))
	require.NoError(t, err)
	require.Equal(t, "todo.test", cb.Host)
	require.Equal(t, "/login/oidc/callback", cb.Path)
	return cb.RequestURI()
}

// sessionSet returns the todo_session cookie an answer sets, or "".
func sessionSet(res answer) string {
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == sessionCookie && c.Value != "" {
			return c.Value
		}
	}
	return ""
}

// TestOIDCLogIn: a browser logs in through a real OpenID Provider and
// its session works on /todos like a password log-in's, CSRF rules
// included; the callbacks an attacker could send are refused without a
// session.
func TestOIDCLogIn(t *testing.T) {
	t.Parallel()
	issuer := startOIDCProvider(t)
	s := start(t, env(), zap.NewNop(), "-users", "test-user2:tok2,alice:tokenA",
		"-oidc-issuer", issuer, "-oidc-client-id", "todo-web", "-oidc-client-secret", "web-secret",
		"-public-url", "http://todo.test")

	b := newOIDCBrowser(t)
	// A session the browser had before: the log-in replaces it.
	res := b.do(t, "POST", s.base+"/session", "application/x-www-form-urlencoded", "user=alice&token=tokenA")
	require.Equal(t, 204, res.status, res.body)
	before := sessionSet(res)
	require.NotEmpty(t, before)

	res = b.do(t, "GET", s.base+"/login/oidc", "", "")
	require.Contains(t, []int{302, 303}, res.status, res.body)
	auth, err := url.Parse(res.header.Get("Location"))
	require.NoError(t, err)
	q := auth.Query()
	assert.Equal(t, "code", q.Get("response_type"))
	assert.Equal(t, "todo-web", q.Get("client_id"))
	assert.Equal(t, "http://todo.test/login/oidc/callback", q.Get("redirect_uri"))
	assert.Contains(t, strings.Fields(q.Get("scope")), "openid")
	assert.Equal(t, "S256", q.Get("code_challenge_method"))
	assert.NotEmpty(t, q.Get("code_challenge"))
	assert.NotEmpty(t, q.Get("state"))
	assert.NotEmpty(t, q.Get("nonce"))

	// The provider's redirect as a browser follows it: a cross-site
	// navigation.
	navigation := []string{"Accept", "text/html", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}
	cb := logInAtProvider(t, b, s.base, issuer)
	res = b.do(t, "GET", s.base+cb, "", "", navigation...)
	require.Contains(t, []int{302, 303}, res.status, res.body)
	assert.Equal(t, "/", res.header.Get("Location"))
	after := sessionSet(res)
	require.NotEmpty(t, after)
	assert.NotEqual(t, before, after)

	res = b.do(t, "POST", s.base+"/todos", jsonType, `{"title":"through the provider"}`)
	assert.Equal(t, 201, res.status, res.body)
	res = b.do(t, "GET", s.base+"/todos", "", "")
	assert.Equal(t, 200, res.status, res.body)
	assert.JSONEq(t, `[{"id":1,"title":"through the provider","done":false}]`, res.body)
	res = b.do(t, "GET", s.base+"/todos", "", "", "Authorization", "Bearer tok2")
	assert.JSONEq(t, `[{"id":1,"title":"through the provider","done":false}]`, res.body, "test-user2's todos")
	res = b.do(t, "POST", s.base+"/todos", jsonType, `{"title":"forged"}`,
		"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, 403, res.status, "CSRF rules hold: %s", res.body)

	// The same callback again, in this browser and in a fresh one.
	for _, br := range []*oidcBrowser{b, newOIDCBrowser(t)} {
		res = br.do(t, "GET", s.base+cb, "", "")
		assert.Equal(t, 403, res.status, res.body)
		assert.Empty(t, sessionSet(res))
	}
}

// TestOIDCRefusals: callbacks that do not end a log-in this browser
// started are refused in the error shape, with no session cookie.
func TestOIDCRefusals(t *testing.T) {
	t.Parallel()
	issuer := startOIDCProvider(t)
	s := start(t, env(), zap.NewNop(), "-users", "test-user2:tok2",
		"-oidc-issuer", issuer, "-oidc-client-id", "todo-web", "-oidc-client-secret", "web-secret",
		"-public-url", "http://todo.test")
	refused := func(t *testing.T, res answer) {
		t.Helper()
		assert.Contains(t, []int{400, 401, 403}, res.status, res.body)
		assert.Regexp(t, `^\{"statusCode":4\d\d,.*"error":".+","message":".+"\}$`, res.body)
		assert.Empty(t, sessionSet(res))
	}
	t.Run("no state", func(t *testing.T) {
		b := newOIDCBrowser(t)
		b.do(t, "GET", s.base+"/login/oidc", "", "")
		refused(t, b.do(t, "GET", s.base+"/login/oidc/callback?code=x", "", ""))
	})
	t.Run("unknown state", func(t *testing.T) {
		b := newOIDCBrowser(t)
		b.do(t, "GET", s.base+"/login/oidc", "", "")
		refused(t, b.do(t, "GET", s.base+"/login/oidc/callback?code=x&state=made-up", "", ""))
	})
	t.Run("another browser's state", func(t *testing.T) {
		attacker, victim := newOIDCBrowser(t), newOIDCBrowser(t)
		cb := logInAtProvider(t, attacker, s.base, issuer)
		victim.do(t, "GET", s.base+"/login/oidc", "", "")
		refused(t, victim.do(t, "GET", s.base+cb, "", ""))
	})
	t.Run("access denied", func(t *testing.T) {
		b := newOIDCBrowser(t)
		res := b.do(t, "GET", s.base+"/login/oidc", "", "")
		u, err := url.Parse(res.header.Get("Location"))
		require.NoError(t, err)
		state := url.QueryEscape(u.Query().Get("state"))
		refused(t, b.do(t, "GET", s.base+"/login/oidc/callback?error=access_denied&state="+state, "", ""))
	})
}
