package oidc_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/oidctest"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

// startProvider starts the OpenID Provider of github.com/zitadel/oidc
// on a free port with a web client (id "todo-web", secret "web-secret")
// whose redirect and post-logout URIs are any loopback port's; it
// returns the issuer URL and is stopped when t ends.
func startProvider(t *testing.T) string {
	return oidctest.Start(t, "-web-client", "todo-web:web-secret",
		"-redirect-uris", "http://127.0.0.1:*/login/oidc/callback",
		"-post-logout-uris", "http://127.0.0.1:*/bye")
}

// account is the test application's session value.
type account struct {
	Name    string
	Subject string
	IDToken string
}

// rp is the test application, a relying party, on a socket.
type rp struct {
	base string
}

// listen reserves the application's port first: its redirect URL names
// it.
func listen(t *testing.T) (net.Listener, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln, "http://" + ln.Addr().String()
}

// serveRP serves an application logging in through issuer on ln, with a
// session of type account, GET /me and GET /bye.
func serveRP(t *testing.T, ln net.Listener, base, issuer, secret string, opts ...oidc.Option) *rp {
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[account](session.NewMemoryStore(), session.Cookie("sid"), session.Insecure()))
		logIn := func(_ context.Context, id *oidc.Identity) (account, error) {
			name := id.PreferredUsername
			if name == "" {
				name = id.Subject
			}
			return account{Name: name, Subject: id.Subject, IDToken: id.IDToken}, nil
		}
		opts = append([]oidc.Option{oidc.Insecure(), oidc.AfterLogout("/bye"),
			oidc.EndSession(func(a account) string { return a.IDToken })}, opts...)
		s.Register(oidc.Plugin(oidc.Client{
			Issuer: issuer, ID: "todo-web", Secret: secret, RedirectURL: base + "/login/oidc/callback",
		}, logIn, opts...))
		type in struct {
			app.In
			Session *session.Session[account]
		}
		app.Get(s, "/me", func(_ context.Context, in in) (string, error) {
			a, ok := in.Session.Get()
			if !ok {
				return "", httpx.NewError(401, "", "log in first")
			}
			return a.Name + " " + a.Subject, nil
		})
		app.Get(s, "/bye", func(context.Context, struct{ app.In }) (string, error) { return "bye", nil })
		return nil
	}, app.Name("web"))
	require.NoError(t, s.Ready())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = s.Close(ctx)
		<-done
	})
	return &rp{base: base}
}

// browser is a client with a cookie jar that follows no redirect, so
// that the test sees every step.
type browser struct {
	*http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{&http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// step sends one request and returns the answer with its body read.
func (b *browser) step(t *testing.T, method, target string, form url.Values) *apptest.Response {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, target, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(res.Body)
	require.NoError(t, err)
	return &apptest.Response{StatusCode: res.StatusCode, Header: res.Header, Body: buf.String()}
}

// follow follows redirects from target until an answer that is not a
// redirect, or one to prefix; it returns that answer and its URL.
func (b *browser) follow(t *testing.T, target, prefix string) (*apptest.Response, string) {
	t.Helper()
	for range 10 {
		res := b.step(t, "GET", target, nil)
		if res.StatusCode/100 != 3 {
			return res, target
		}
		u, err := url.Parse(target)
		require.NoError(t, err)
		next, err := u.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		target = next.String()
		if strings.HasPrefix(target, prefix) {
			return res, target
		}
	}
	t.Fatalf("too many redirects from %s", target)
	return nil, ""
}

// logInAtProvider drives a whole log-in: the application's redirect,
// the provider's log-in page, and back; it returns the callback URL the
// provider sent the browser to, not yet visited.
func logInAtProvider(t *testing.T, b *browser, app *rp, issuer string) string {
	t.Helper()
	res := b.step(t, "GET", app.base+"/login/oidc", nil)
	require.Contains(t, []int{302, 303}, res.StatusCode, res.Body)
	auth := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(auth, issuer), auth)
	cb := oidctest.LogIn(t, b.Client, auth)
	require.True(t, strings.HasPrefix(cb, app.base+"/login/oidc/callback?"), cb)
	return cb
}

// TestRealProviderLogIn logs a browser in through a real OpenID
// Provider, its log-in page driven over HTTP, then out of both.
func TestRealProviderLogIn(t *testing.T) {
	t.Parallel()
	issuer := startProvider(t)
	ln, base := listen(t)
	app := serveRP(t, ln, base, issuer, "web-secret")
	b := newBrowser(t)

	// The redirect to the provider asks for what it must.
	res := b.step(t, "GET", app.base+"/login/oidc", nil)
	require.Contains(t, []int{302, 303}, res.StatusCode, res.Body)
	auth, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	q := auth.Query()
	assert.Equal(t, "code", q.Get("response_type"))
	assert.Equal(t, "todo-web", q.Get("client_id"))
	assert.Equal(t, base+"/login/oidc/callback", q.Get("redirect_uri"))
	assert.Contains(t, strings.Fields(q.Get("scope")), "openid")
	assert.Equal(t, "S256", q.Get("code_challenge_method"))
	assert.Len(t, q.Get("code_challenge"), 43)
	assert.NotEmpty(t, q.Get("state"))
	assert.NotEmpty(t, q.Get("nonce"))
	assert.NotEqual(t, q.Get("state"), q.Get("nonce"))

	cb := logInAtProvider(t, b, app, issuer)
	res = b.step(t, "GET", cb, nil)
	require.Equal(t, 303, res.StatusCode, res.Body)
	assert.Equal(t, "/", res.Header.Get("Location"))
	sid := cookieNamed(res, "sid")
	require.NotNil(t, sid, "a session cookie")
	res = b.step(t, "GET", app.base+"/me", nil)
	require.Equal(t, 200, res.StatusCode, res.Body)
	assert.Equal(t, "test-user2 id2", res.Body)

	// The same callback again: its flow is spent.
	res = b.step(t, "GET", cb, nil)
	assert.Equal(t, 403, res.StatusCode, res.Body)
	assert.Nil(t, cookieNamed(res, "sid"))

	// Log-out: the session ends here, and the browser goes to the
	// provider's end_session_endpoint, which sends it back.
	res = b.step(t, "POST", app.base+"/logout/oidc", nil)
	require.Equal(t, 303, res.StatusCode, res.Body)
	end, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(end.String(), issuer), end.String())
	assert.Equal(t, base+"/bye", end.Query().Get("post_logout_redirect_uri"))
	assert.NotEmpty(t, end.Query().Get("id_token_hint"))
	res, last := b.follow(t, end.String(), base)
	assert.Equal(t, base+"/bye", last, res.Body)
	res = b.step(t, "GET", app.base+"/me", nil)
	assert.Equal(t, 401, res.StatusCode)
}

// TestRealProviderWrongSecret: the provider refuses the code exchange
// of a client with the wrong secret, and so does the callback.
func TestRealProviderWrongSecret(t *testing.T) {
	t.Parallel()
	issuer := startProvider(t)
	ln, base := listen(t)
	app := serveRP(t, ln, base, issuer, "not-the-secret")
	b := newBrowser(t)
	cb := logInAtProvider(t, b, app, issuer)
	res := b.step(t, "GET", cb, nil)
	assert.Equal(t, 401, res.StatusCode, res.Body)
	assert.Contains(t, res.Body, `"code":"FST_OIDC_TOKEN"`)
	assert.Nil(t, cookieNamed(res, "sid"))
}

func cookieNamed(res *apptest.Response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == name && c.Value != "" {
			return c
		}
	}
	return nil
}
