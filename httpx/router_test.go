package httpx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

func newRouter(t testing.TB, routes ...string) *httpx.Router[string] {
	r := &httpx.Router[string]{}
	for _, rt := range routes {
		method, pattern, _ := strings.Cut(rt, " ")
		require.NoError(t, r.Add(method, pattern, rt))
	}
	return r
}

func TestRouterLookup(t *testing.T) {
	r := newRouter(t,
		"GET /", "GET /users", "POST /users", "GET /users/:id", "DELETE /users/:id",
		"GET /users/:id/posts/:post", "GET /users/me", "GET /files/*", "GET /a/b/c", "GET /a/:x/d",
		"GET /slash/", "GET /static/*", "GET /static/logo.png",
	)
	tests := []struct {
		method, path string
		match        httpx.Match
		route        string
		params       string
		allow        string
	}{
		{"GET", "/", httpx.Found, "GET /", "", "GET"},
		{"GET", "/users", httpx.Found, "GET /users", "", "GET, POST"},
		{"POST", "/users", httpx.Found, "POST /users", "", "GET, POST"},
		{"PUT", "/users", httpx.MethodNotAllowed, "", "", "GET, POST"},
		{"GET", "/users/42", httpx.Found, "GET /users/:id", "id=42", "DELETE, GET"},
		{"GET", "/users/me", httpx.Found, "GET /users/me", "", "GET"},
		{"DELETE", "/users/me", httpx.MethodNotAllowed, "", "", "GET"},
		{"GET", "/users/7/posts/9", httpx.Found, "GET /users/:id/posts/:post", "id=7 post=9", "GET"},
		{"GET", "/users/7/posts", httpx.NoRoute, "", "", ""},
		{"GET", "/users/", httpx.NoRoute, "", "", ""},
		{"GET", "/files/a/b.txt", httpx.Found, "GET /files/*", "*=a/b.txt", "GET"},
		{"GET", "/files/", httpx.Found, "GET /files/*", "*=", "GET"},
		{"GET", "/files", httpx.NoRoute, "", "", ""},
		{"GET", "/a/b/c", httpx.Found, "GET /a/b/c", "", "GET"},
		{"GET", "/a/b/d", httpx.Found, "GET /a/:x/d", "x=b", "GET"}, // backtracks from static b
		{"GET", "/a/z/d", httpx.Found, "GET /a/:x/d", "x=z", "GET"},
		{"GET", "/slash/", httpx.Found, "GET /slash/", "", "GET"},
		{"GET", "/slash", httpx.NoRoute, "", "", ""},
		{"GET", "/static/logo.png", httpx.Found, "GET /static/logo.png", "", "GET"},
		{"GET", "/static/logo.gif", httpx.Found, "GET /static/*", "*=logo.gif", "GET"},
		{"GET", "/nope", httpx.NoRoute, "", "", ""},
		{"GET", "", httpx.NoRoute, "", "", ""},
		{"GET", "relative", httpx.NoRoute, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			var ps httpx.Params
			h, allow, m := r.Lookup(tt.method, tt.path, &ps)
			assert.Equal(t, tt.match, m)
			assert.Equal(t, tt.route, h)
			if m != httpx.NoRoute {
				assert.Equal(t, tt.allow, allow)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Key+"="+p.Value)
			}
			assert.Equal(t, tt.params, strings.Join(got, " "))
		})
	}
}

func TestRouterAddErrors(t *testing.T) {
	tests := []struct {
		existing []string
		method   string
		pattern  string
		err      error
	}{
		{nil, "GET", "users", httpx.ErrInvalidPath},
		{nil, "GET", "/files/*/x", httpx.ErrInvalidPath},
		{nil, "GET", "/files/a*", httpx.ErrInvalidPath},
		{nil, "GET", "/users/:", httpx.ErrInvalidPath},
		{nil, "", "/x", httpx.ErrInvalidPath},
		{nil, "G ET", "/x", httpx.ErrInvalidPath},
		{[]string{"GET /x"}, "GET", "/x", httpx.ErrDuplicateRoute},
		{[]string{"GET /u/:id"}, "GET", "/u/:id", httpx.ErrDuplicateRoute},
		{[]string{"GET /u/:id"}, "GET", "/u/:name/x", httpx.ErrRouteConflict},
		{[]string{"GET /x"}, "POST", "/x", nil},
		{[]string{"GET /u/:id"}, "GET", "/u/:id/x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.pattern, func(t *testing.T) {
			r := newRouter(t, tt.existing...)
			err := r.Add(tt.method, tt.pattern, "")
			if tt.err == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.err)
			}
		})
	}
}

func TestRouterMaxParamLength(t *testing.T) {
	r := newRouter(t, "GET /u/:id", "GET /f/*")
	var ps httpx.Params
	_, _, m := r.Lookup("GET", "/u/"+strings.Repeat("x", httpx.DefaultMaxParamLength), &ps)
	assert.Equal(t, httpx.Found, m)
	ps = ps[:0]
	_, _, m = r.Lookup("GET", "/u/"+strings.Repeat("x", httpx.DefaultMaxParamLength+1), &ps)
	assert.Equal(t, httpx.NoRoute, m, "a longer parameter does not match")
	assert.Empty(t, ps, "a failed lookup leaves no parameters behind")

	r.MaxParamLength = 3
	_, _, m = r.Lookup("GET", "/u/abcd", &ps)
	assert.Equal(t, httpx.NoRoute, m)
	_, _, m = r.Lookup("GET", "/u/abc", &ps)
	assert.Equal(t, httpx.Found, m)
}

func TestRouterWalk(t *testing.T) {
	r := newRouter(t, "GET /b", "POST /a", "GET /a", "GET /a/:id")
	var got []string
	r.Walk(func(method, pattern, h string) { got = append(got, method+" "+pattern) })
	assert.Equal(t, []string{"POST /a", "GET /a", "GET /a/:id", "GET /b"}, got)
}

// githubAPI is a realistic route set: the shape of GitHub's REST API.
var githubAPI = func() []string {
	var out []string
	for _, p := range []string{
		"/authorizations", "/authorizations/:id", "/applications/:client_id/tokens/:access_token",
		"/events", "/repos/:owner/:repo/events", "/networks/:owner/:repo/events", "/orgs/:org/events",
		"/users/:user/received_events", "/users/:user/received_events/public", "/users/:user/events",
		"/users/:user/events/public", "/users/:user/events/orgs/:org", "/feeds", "/notifications",
		"/repos/:owner/:repo/notifications", "/notifications/threads/:id",
		"/notifications/threads/:id/subscription", "/repos/:owner/:repo/stargazers", "/users/:user/starred",
		"/user/starred", "/user/starred/:owner/:repo", "/repos/:owner/:repo/subscribers",
		"/users/:user/subscriptions", "/user/subscriptions", "/repos/:owner/:repo/subscription",
		"/user/subscriptions/:owner/:repo", "/users/:user/gists", "/gists", "/gists/public", "/gists/starred",
		"/gists/:id", "/gists/:id/star", "/gists/:id/forks", "/repos/:owner/:repo/git/blobs/:sha",
		"/repos/:owner/:repo/git/commits/:sha", "/repos/:owner/:repo/git/refs", "/repos/:owner/:repo/git/tags/:sha",
		"/repos/:owner/:repo/git/trees/:sha", "/issues", "/user/issues", "/orgs/:org/issues",
		"/repos/:owner/:repo/issues", "/repos/:owner/:repo/issues/:number", "/repos/:owner/:repo/assignees",
		"/repos/:owner/:repo/assignees/:assignee", "/repos/:owner/:repo/issues/:number/comments",
		"/repos/:owner/:repo/issues/:number/events", "/repos/:owner/:repo/labels", "/repos/:owner/:repo/labels/:name",
		"/repos/:owner/:repo/issues/:number/labels", "/repos/:owner/:repo/milestones/:number/labels",
		"/repos/:owner/:repo/milestones", "/repos/:owner/:repo/milestones/:number", "/emojis", "/gitignore/templates",
		"/gitignore/templates/:name", "/markdown", "/markdown/raw", "/meta", "/rate_limit", "/users/:user/orgs",
		"/user/orgs", "/orgs/:org", "/orgs/:org/members", "/orgs/:org/members/:user", "/orgs/:org/public_members",
		"/orgs/:org/public_members/:user", "/orgs/:org/teams", "/teams/:id", "/teams/:id/members",
		"/teams/:id/members/:user", "/teams/:id/repos", "/teams/:id/repos/:owner/:repo", "/user/teams",
		"/repos/:owner/:repo/pulls", "/repos/:owner/:repo/pulls/:number", "/repos/:owner/:repo/pulls/:number/commits",
		"/repos/:owner/:repo/pulls/:number/files", "/repos/:owner/:repo/pulls/:number/merge",
		"/repos/:owner/:repo/pulls/:number/comments", "/user/repos", "/users/:user/repos", "/orgs/:org/repos",
		"/repositories", "/repos/:owner/:repo", "/repos/:owner/:repo/contributors", "/repos/:owner/:repo/languages",
		"/repos/:owner/:repo/teams", "/repos/:owner/:repo/tags", "/repos/:owner/:repo/branches",
		"/repos/:owner/:repo/branches/:branch", "/repos/:owner/:repo/collaborators",
		"/repos/:owner/:repo/collaborators/:user", "/repos/:owner/:repo/comments", "/repos/:owner/:repo/commits/:sha/comments",
		"/repos/:owner/:repo/comments/:id", "/repos/:owner/:repo/commits", "/repos/:owner/:repo/commits/:sha",
		"/repos/:owner/:repo/readme", "/repos/:owner/:repo/keys", "/repos/:owner/:repo/keys/:id",
		"/repos/:owner/:repo/downloads", "/repos/:owner/:repo/downloads/:id", "/repos/:owner/:repo/forks",
		"/repos/:owner/:repo/hooks", "/repos/:owner/:repo/hooks/:id", "/repos/:owner/:repo/releases",
		"/repos/:owner/:repo/releases/:id", "/repos/:owner/:repo/releases/:id/assets",
		"/repos/:owner/:repo/stats/contributors", "/repos/:owner/:repo/stats/commit_activity",
		"/repos/:owner/:repo/stats/code_frequency", "/repos/:owner/:repo/stats/participation",
		"/repos/:owner/:repo/stats/punch_card", "/repos/:owner/:repo/statuses/:ref", "/search/repositories",
		"/search/code", "/search/issues", "/search/users", "/legacy/issues/search/:owner/:repository/:state/:keyword",
		"/legacy/repos/search/:keyword", "/legacy/user/search/:keyword", "/legacy/user/email/:email",
		"/users/:user", "/user", "/users", "/user/emails", "/users/:user/followers", "/user/followers",
		"/users/:user/following", "/user/following", "/user/following/:user", "/users/:user/following/:target_user",
		"/users/:user/keys", "/user/keys", "/user/keys/:id",
	} {
		out = append(out, "GET "+p)
	}
	return out
}()

func lookup(b *testing.B, r *httpx.Router[string], paths []string) {
	var ps httpx.Params = make(httpx.Params, 0, 8)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		ps = ps[:0]
		if _, _, m := r.Lookup("GET", paths[i%len(paths)], &ps); m != httpx.Found {
			b.Fatal(paths[i%len(paths)])
		}
		i++
	}
}

func BenchmarkRouterStatic(b *testing.B) {
	lookup(b, newRouter(b, githubAPI...), []string{"/user/repos"})
}

func BenchmarkRouterParam(b *testing.B) {
	lookup(b, newRouter(b, githubAPI...), []string{"/users/ada"})
}

func BenchmarkRouterGitHubAPI(b *testing.B) {
	var paths []string
	for _, rt := range githubAPI {
		p := strings.TrimPrefix(rt, "GET ")
		segs := strings.Split(p, "/")
		for i, s := range segs {
			if strings.HasPrefix(s, ":") {
				segs[i] = fmt.Sprintf("v%d", i)
			}
		}
		paths = append(paths, strings.Join(segs, "/"))
	}
	lookup(b, newRouter(b, githubAPI...), paths)
}

func BenchmarkRouterExample(b *testing.B) {
	lookup(b, newRouter(b, "GET /one", "GET /two", "GET /three"), []string{"/one", "/two", "/three"})
}
