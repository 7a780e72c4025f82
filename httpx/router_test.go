package httpx_test

import (
	"fmt"
	"os"
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

// paramString writes ps as "key=value" pairs joined by spaces, the form the
// tables below expect.
func paramString(ps httpx.Params) string {
	got := make([]string, 0, len(ps))
	for _, p := range ps {
		got = append(got, p.Key+"="+p.Value)
	}
	return strings.Join(got, " ")
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
		{"PUT", "/users", httpx.MethodNotAllowed, "GET /users", "", "GET, POST"}, // the path's first route
		{"GET", "/users/42", httpx.Found, "GET /users/:id", "id=42", "DELETE, GET"},
		{"GET", "/users/me", httpx.Found, "GET /users/me", "", "GET"},
		{"DELETE", "/users/me", httpx.MethodNotAllowed, "GET /users/me", "", "GET"},
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
			assert.Equal(t, tt.params, paramString(ps))
		})
	}
}

func TestRouterLookupEscaped(t *testing.T) {
	t.Parallel()
	r := newRouter(t,
		"GET /users/me", "GET /users/:id", "POST /users/:id", "GET /two", "GET /café", "GET /a/b", "GET /:name",
		"GET /files/*", "GET /100%", "GET /u/:a/:b",
	)
	r.MaxParamLength = 5
	tests := []struct {
		method, path string
		match        httpx.Match
		route        string
		params       string
	}{
		{"GET", "/users/%6De", httpx.Found, "GET /users/me", ""},
		{"GET", "/users/%6de", httpx.Found, "GET /users/me", ""},
		{"GET", "/%75%73%65%72%73/me", httpx.Found, "GET /users/me", ""},
		{"GET", "/%74wo", httpx.Found, "GET /two", ""},
		{"GET", "/caf%C3%A9", httpx.Found, "GET /café", ""},
		{"GET", "/caf%c3%a9", httpx.Found, "GET /café", ""},
		{"GET", "/100%25", httpx.Found, "GET /100%", ""},
		{"GET", "/a/%62", httpx.Found, "GET /a/b", ""},
		{"GET", "/a%2Fb", httpx.Found, "GET /:name", "name=a/b"},
		{"GET", "/a%2fb", httpx.Found, "GET /:name", "name=a/b"},
		{"GET", "/users/%61%2F%62", httpx.Found, "GET /users/:id", "id=a/b"},
		{"PUT", "/users/%61", httpx.MethodNotAllowed, "GET /users/:id", ""},
		{"GET", "/u/%41/b%43", httpx.Found, "GET /u/:a/:b", "a=A b=bC"},
		{"GET", "/u/x/%41%42%43%44%45", httpx.Found, "GET /u/:a/:b", "a=x b=ABCDE"}, // 15 bytes, 5 decoded
		{"GET", "/u/x/%41%42%43%44%45%46", httpx.NoRoute, "", ""},
		{"GET", "/files/a%2Fb/%63", httpx.Found, "GET /files/*", "*=a/b/c"},
		{"GET", "/users/%zz", httpx.NoRoute, "", ""},
		{"GET", "/users/%", httpx.NoRoute, "", ""},
		{"GET", "/users/%6", httpx.NoRoute, "", ""},
		{"GET", "%2Fusers", httpx.NoRoute, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			var ps httpx.Params
			h, _, m := r.LookupEscaped(tt.method, tt.path, &ps)
			assert.Equal(t, tt.match, m)
			assert.Equal(t, tt.route, h)
			if m == httpx.Found {
				assert.Equal(t, tt.params, paramString(ps))
			}
			if m == httpx.NoRoute {
				assert.Empty(t, ps, "a failed lookup leaves no parameters behind")
			}
		})
	}
}

// Lookup never allocates; LookupEscaped allocates only the decoded values
// of the parameters that hold escapes, all in one string.
func TestRouterLookupAllocations(t *testing.T) {
	r := newRouter(t, githubAPI...)
	ps := make(httpx.Params, 0, 8)
	tests := []struct {
		path    string
		escaped bool
		allocs  float64
	}{
		{"/repos/ada/burrow/issues/7", false, 0},
		{"/repos/ada/burrow/issues/7", true, 0},
		{"/%72epos/ada/burrow/%69ssues/7", true, 0},
		{"/repos/%61da/burrow/issues/%37", true, 1},
		{"/repos/%61da/" + strings.Repeat("%62", 90) + "/issues/%37", true, 1},
		{"/repos/" + strings.Repeat("%61", 100) + "/" + strings.Repeat("%62", 100) + "/issues/%37", true, 1},
	}
	for _, tt := range tests {
		allocs := testing.AllocsPerRun(100, func() {
			ps = ps[:0]
			lookup := r.Lookup
			if tt.escaped {
				lookup = r.LookupEscaped
			}
			if _, _, m := lookup("GET", tt.path, &ps); m != httpx.Found {
				t.Fatal(tt.path)
			}
		})
		assert.Equal(t, tt.allocs, allocs, tt.path)
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
		{nil, "", "/x", httpx.ErrInvalidMethod},
		{nil, "G ET", "/x", httpx.ErrInvalidMethod},
		{nil, "get", "/x", httpx.ErrInvalidMethod},
		{nil, "GET,POST", "/x", httpx.ErrInvalidMethod},
		{nil, "(GET)", "/x", httpx.ErrInvalidMethod},
		{nil, "GÉT", "/x", httpx.ErrInvalidMethod},
		{nil, "123", "/x", httpx.ErrInvalidMethod},
		{nil, "GET\x00", "/x", httpx.ErrInvalidMethod},
		{nil, "GET\n", "/x", httpx.ErrInvalidMethod},
		{nil, "M-SEARCH", "/x", nil},
		{nil, httpx.AnyMethod, "/x", nil},
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

// githubAPI is a realistic route set: the shape of GitHub's REST API, from
// testdata (the bench module compares other routers on the same file).
var githubAPI = func() []string {
	b, err := os.ReadFile("testdata/github-api.txt")
	if err != nil {
		panic(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, "GET "+line)
		}
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

func BenchmarkRouterEscaped(b *testing.B) {
	r := newRouter(b, githubAPI...)
	var ps httpx.Params = make(httpx.Params, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		ps = ps[:0]
		if _, _, m := r.LookupEscaped("GET", "/repos/%61da/burrow/%69ssues/7", &ps); m != httpx.Found {
			b.Fatal(m)
		}
	}
}

func TestRouterAnyMethod(t *testing.T) {
	t.Parallel()
	r := newRouter(t, "* /files/*", "GET /files/index", "* /files/index", "POST /plain")
	cases := []struct{ method, path, want string }{
		{"DELETE", "/files/a", "* /files/*"},
		{"GET", "/files/index", "GET /files/index"},
		{"PROPFIND", "/files/index", "* /files/index"},
	}
	for _, c := range cases {
		var ps httpx.Params
		h, _, m := r.Lookup(c.method, c.path, &ps)
		assert.Equal(t, httpx.Found, m, c.method+" "+c.path)
		assert.Equal(t, c.want, h)
	}
	var ps httpx.Params
	_, allow, m := r.Lookup("GET", "/plain", &ps)
	assert.Equal(t, httpx.MethodNotAllowed, m)
	assert.Equal(t, "POST", allow)
}
