package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
	"github.com/burrow-go/burrow/plugins/session"
)

func TestMain(m *testing.M) { apptest.Main(m) }

// user is the identity every method of the tests' guard finds.
type user string

var errNoSession = httpx.NewError(http.StatusUnauthorized, "NO_SESSION", "log in again")

// newGuarded serves a context guarded by a bearer key (ada's) or the
// session cookie "sid", whose log-in route (public) starts a session
// for the user the body names.
func newGuarded(t *testing.T) (string, *app.Server) {
	t.Helper()
	store := session.NewMemoryStore()
	opts := []session.Option{session.Cookie("sid"), session.Insecure()}
	s := apptest.New(t)
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[string](store, opts...))
		s.Register(auth.AnyOf(
			bearer.Method(func(bearer.Identity) (user, error) { return "ada", nil }, bearer.Keys("ada-key")),
			session.Method(store, func(name string, ok bool) (user, error) {
				if !ok {
					return "", errNoSession
				}
				return user(name), nil
			}, opts...),
		))
		type me struct {
			app.In
			User user
		}
		app.Get(s, "/me", func(_ context.Context, in me) (string, error) { return string(in.User), nil })
		return app.Post(s, "/me", func(_ context.Context, in me) (string, error) { return "posted by " + string(in.User), nil })
	}, app.Name("api")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[string](store, opts...))
		type login struct {
			app.In
			Session *session.Session[string]
		}
		return app.Post(s, "/login/:name", func(_ context.Context, in login) (app.NoContent, error) {
			in.Session.Regenerate()
			in.Session.Set("bob")
			return app.NoContent{}, nil
		})
	}, app.Name("login")))
	return apptest.Serve(t, s), s
}

func TestAnyOfTheFirstCredentialPresentDecides(t *testing.T) {
	t.Parallel()
	base, _ := newGuarded(t)
	res := apptest.Fetch(t, "POST", base+"/login/bob")
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	cookie := strings.Split(res.Header.Get("Set-Cookie"), ";")[0]
	require.True(t, strings.HasPrefix(cookie, "sid="), cookie)

	tests := []struct {
		name, method string
		header       []string
		status       int
		body         string
		challenge    string
	}{
		{"no credential: the first method's refusal", "GET", nil, 401, `{"error":"missing authorization header"}`, "Bearer"},
		{"a bearer key", "GET", []string{"Authorization", "Bearer ada-key"}, 200, "ada", ""},
		{"a session cookie", "GET", []string{"Cookie", cookie}, 200, "bob", ""},
		{"a wrong key does not fall through to a good cookie", "GET",
			[]string{"Authorization", "Bearer nope", "Cookie", cookie}, 401, `{"error":"invalid authorization header"}`, `Bearer error="invalid_token"`},
		{"another scheme is a wrong bearer credential", "GET",
			[]string{"Authorization", "Basic YTpi", "Cookie", cookie}, 401, `{"error":"invalid authorization header"}`, `Bearer error="invalid_token"`},
		{"a dead session is refused, with the other ways' challenge", "GET", []string{"Cookie", "sid=forged"}, 401, "log in again", "Bearer"},
		{"a cookie's cross-site POST is refused", "POST", []string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site"}, 403, "cross-origin request refused", ""},
		{"a cookie's same-origin POST passes", "POST", []string{"Cookie", cookie, "Sec-Fetch-Site", "same-origin"}, 200, "posted by bob", ""},
		{"a cookie's cross-site GET passes", "GET", []string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site"}, 200, "bob", ""},
		{"a key's cross-site POST passes: no browser adds a key", "POST",
			[]string{"Authorization", "Bearer ada-key", "Sec-Fetch-Site", "cross-site"}, 200, "posted by ada", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := apptest.Fetch(t, tt.method, base+"/me", tt.header...)
			assert.Equal(t, tt.status, res.StatusCode, res.Body)
			assert.Contains(t, res.Body, tt.body)
			assert.Equal(t, tt.challenge, res.Header.Get("Www-Authenticate"))
		})
	}
}

func TestAnyOfDeclaresItsGuardsAndAlternatives(t *testing.T) {
	t.Parallel()
	_, s := newGuarded(t)
	byRoute := map[string]app.RouteInfo{}
	for _, r := range s.Routes() {
		byRoute[r.Method+" "+r.Path] = r
	}
	get, post := byRoute["GET /me"], byRoute["POST /me"]
	assert.Equal(t, []string{"bearer", "session"}, get.Guards.Auth)
	assert.False(t, get.Guards.CSRF, "a GET is never refused as CSRF")
	assert.True(t, post.Guards.CSRF, "the cookie's way is checked for CSRF")
	assert.Empty(t, byRoute["POST /login/:name"].Guards.Auth)

	doc, err := openapi.Build(s.Routes(), openapi.Info{Title: "t", Version: "1"})
	require.NoError(t, err)
	var parsed struct {
		Paths map[string]map[string]struct {
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(doc.JSON(), &parsed))
	assert.Equal(t, []map[string][]string{{"bearerAuth": {}}, {"sessionCookie": {}}}, parsed.Paths["/me"]["get"].Security,
		"one security requirement per method: any of them will do")
}

func TestAnyOfRefusesWhatCannotWork(t *testing.T) {
	t.Parallel()
	key := bearer.Method(func(bearer.Identity) (user, error) { return "", nil }, bearer.Keys("k"))
	tests := []struct {
		name    string
		plugin  func(*app.Server) error
		message string
	}{
		{"no method", func(s *app.Server) error { return s.Register(auth.AnyOf[user]()) }, "at least one method"},
		{"one scheme twice", func(s *app.Server) error { return s.Register(auth.AnyOf(key, key)) }, `two methods are named "bearer"`},
		{"a session without its plugin", func(s *app.Server) error {
			return s.Register(auth.AnyOf(session.Method(session.NewMemoryStore(), func(string, bool) (user, error) { return "", nil })))
		}, "needs session.Plugin"},
		{"bearer's own identity", func(s *app.Server) error {
			return s.Register(auth.AnyOf(bearer.Method(func(bearer.Identity) (user, error) { return "", nil },
				bearer.Keys("k"), bearer.ExposeIdentity("id"))))
		}, "neither ExposeIdentity nor Manual"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			require.NoError(t, s.Register(tt.plugin))
			err := s.Ready()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}
