package oidc_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

func TestInvalidConfiguration(t *testing.T) {
	t.Parallel()
	good := oidc.Client{Issuer: "https://id.example", ID: "app", RedirectURL: "https://app.example/cb"}
	logIn := func(context.Context, *oidc.Identity) (account, error) { return account{}, nil }
	for _, tc := range []struct {
		name   string
		client oidc.Client
		logIn  func(context.Context, *oidc.Identity) (account, error)
		opts   []oidc.Option
		want   string
	}{
		{"no issuer", oidc.Client{ID: "app", RedirectURL: "https://app.example/cb"}, logIn, nil, "Issuer"},
		{"relative issuer", oidc.Client{Issuer: "id.example", ID: "app", RedirectURL: "https://app.example/cb"}, logIn, nil, "Issuer"},
		{"no client id", oidc.Client{Issuer: "https://id.example", RedirectURL: "https://app.example/cb"}, logIn, nil, "ID"},
		{"relative redirect", oidc.Client{Issuer: "https://id.example", ID: "app", RedirectURL: "/cb"}, logIn, nil, "RedirectURL"},
		{"redirect with a query", oidc.Client{Issuer: "https://id.example", ID: "app", RedirectURL: "https://app.example/cb?x=1"}, logIn, nil, "RedirectURL"},
		{"no log-in function", good, nil, nil, "nil log-in"},
		{"after log-in elsewhere", good, logIn, []oidc.Option{oidc.AfterLogin("//evil.example")}, "AfterLogin"},
		{"relative log-in path", good, logIn, []oidc.Option{oidc.LoginPath("login")}, "LoginPath"},
		{"no flow time", good, logIn, []oidc.Option{oidc.FlowTimeout(0)}, "FlowTimeout"},
		{"bad cookie name", good, logIn, []oidc.Option{oidc.FlowCookie("a b")}, "FlowCookie"},
		{"nil store", good, logIn, []oidc.Option{oidc.FlowStore(nil)}, "FlowStore"},
		{"end session of another type", good, logIn, []oidc.Option{oidc.EndSession(func(string) string { return "" })}, "EndSession"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			s.Register(func(s *app.Server) error {
				s.Register(session.Plugin[account](session.NewMemoryStore()))
				return s.Register(oidc.Plugin(tc.client, tc.logIn, tc.opts...))
			})
			err := s.Ready()
			require.Error(t, err)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), "oidc")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestProviderDown: the server starts with its provider down, answers
// the log-in 503 until the provider answers, and asks it at most once a
// second meanwhile.
func TestProviderDown(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	var up atomic.Bool
	var asked atomic.Int32
	down := op.Config.Handler
	op.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			asked.Add(1)
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		down.ServeHTTP(w, r)
	})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret", oidc.Clock(clock))
	b := newBrowser(t)
	for range 5 {
		res := b.step(t, "GET", base+"/login/oidc", nil)
		assert.Equal(t, 503, res.StatusCode, res.Body)
		assert.JSONEq(t, `{"statusCode":503,"error":"Service Unavailable","message":"the identity provider is unavailable"}`, res.Body)
		assert.Nil(t, cookieNamed(res, "oidc_flow"))
	}
	assert.Equal(t, int32(1), asked.Load(), "one discovery a second")
	up.Store(true)
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	res := b.step(t, "GET", begin(t, b, base), nil)
	assert.Equal(t, 303, res.StatusCode, res.Body)
}

// TestFlowExpires: a callback after FlowTimeout is refused.
func TestFlowExpires(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret", oidc.Clock(clock), oidc.FlowTimeout(5*time.Minute))
	b := newBrowser(t)
	cb := begin(t, b, base)
	flow := b.Jar.Cookies(mustURL(t, base+"/login/oidc/callback"))
	require.Len(t, flow, 1)
	mu.Lock()
	now = now.Add(5 * time.Minute)
	mu.Unlock()
	refused(t, b, base, b.step(t, "GET", cb, nil), 403, "FST_OIDC_STATE")
}

// TestLogInRefusedByTheApplication: the log-in function's error is the
// answer, and no session is set.
func TestLogInRefusedByTheApplication(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[account](session.NewMemoryStore(), session.Cookie("sid"), session.Insecure()))
		s.Register(oidc.Plugin(oidc.Client{Issuer: op.URL, ID: "todo-web", Secret: "web-secret", RedirectURL: "http://placeholder/login/oidc/callback"},
			func(context.Context, *oidc.Identity) (account, error) {
				return account{}, &httpx.Error{StatusCode: 403, Code: "NOT_INVITED", Message: "You are not invited", Err: errors.New("not on the list")}
			}, oidc.Insecure()))
		return nil
	})
	// The redirect URL's host is not the server's: the test sends the
	// callback itself, with the browser's flow cookie.
	base := apptest.Serve(t, s)
	b := newBrowser(t)
	res := b.step(t, "GET", base+"/login/oidc", nil)
	require.Equal(t, 303, res.StatusCode)
	res = b.step(t, "GET", res.Header.Get("Location"), nil)
	cb := mustURL(t, res.Header.Get("Location"))
	res = b.step(t, "GET", base+cb.RequestURI(), nil)
	assert.Equal(t, 403, res.StatusCode, res.Body)
	assert.Contains(t, res.Body, "NOT_INVITED")
	assert.Nil(t, cookieNamed(res, "sid"))
}

// TestLocalLogOut: without EndSession, or without a session, log-out
// ends the session here and goes to AfterLogout.
func TestLocalLogOut(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret")
	b := newBrowser(t)
	res := b.step(t, "POST", base+"/logout/oidc", nil)
	assert.Equal(t, 303, res.StatusCode, res.Body)
	assert.Equal(t, "/bye", res.Header.Get("Location"), "no session: nothing to end at the provider")

	require.Equal(t, 303, b.step(t, "GET", begin(t, b, base), nil).StatusCode)
	require.Equal(t, 200, b.step(t, "GET", base+"/me", nil).StatusCode)
	res = b.step(t, "POST", base+"/logout/oidc", nil)
	assert.Equal(t, 303, res.StatusCode, res.Body)
	assert.Equal(t, "/bye", res.Header.Get("Location"), "the provider has no end_session_endpoint")
	assert.Equal(t, 401, b.step(t, "GET", base+"/me", nil).StatusCode)
	assert.Equal(t, 405, b.step(t, "GET", base+"/logout/oidc", nil).StatusCode, "never a GET")
}
