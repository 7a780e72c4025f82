package httpx_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/burrow-go/burrow/httpx"
)

// FuzzRouterLookup checks the router on arbitrary paths against the
// GitHub route set plus wildcards: no panic; the same path gives the same
// answer twice; a match's pattern has as many segments as the path (or
// fewer, ending in a wildcard); every static segment of the pattern is
// the path's; every parameter value is the path segment at its place and
// within the length limit.
func FuzzRouterLookup(f *testing.F) {
	routes := append([]string{"GET /static/*", "GET /files/:name/*", "POST /users/:user"}, githubAPI...)
	r := newRouter(f, routes...)
	r.MaxParamLength = 20
	for _, seed := range []string{"/", "/users/ada", "/repos/a/b/issues/1", "/static/", "/static/a/b", "//", "/users//x",
		"/files/x/", "/repos/a/b/stats/contributors", "/user/keys/1/", "/" + strings.Repeat("a", 30), "/users/%2F", "x", ""} {
		f.Add("GET", seed)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		var ps httpx.Params
		h, allow, m := r.Lookup(method, path, &ps)
		var ps2 httpx.Params
		h2, allow2, m2 := r.Lookup(method, path, &ps2)
		if h != h2 || allow != allow2 || m != m2 || len(ps) != len(ps2) {
			t.Fatalf("%s %q: two lookups differ", method, path)
		}
		if !strings.Contains(path, "%") {
			// With nothing to decode, the escaped lookup is the same lookup.
			var ps3 httpx.Params
			h3, allow3, m3 := r.LookupEscaped(method, path, &ps3)
			if h != h3 || allow != allow3 || m != m3 || !slices.Equal(ps, ps3) {
				t.Fatalf("%s %q: escaped lookup differs", method, path)
			}
		}
		if m != httpx.Found {
			return
		}
		_, pattern, _ := strings.Cut(h, " ")
		psegs := strings.Split(pattern[1:], "/")
		segs := strings.Split(path[1:], "/")
		wild := psegs[len(psegs)-1] == "*"
		if (!wild && len(segs) != len(psegs)) || (wild && len(segs) < len(psegs)-1) {
			t.Fatalf("%q matched %q", path, pattern)
		}
		pi := 0
		for i, seg := range psegs {
			switch {
			case seg == "*":
				if pi >= len(ps) || ps[pi].Value != strings.Join(segs[i:], "/") {
					t.Fatalf("%q on %q: wildcard %v", path, pattern, ps)
				}
				pi++
			case strings.HasPrefix(seg, ":"):
				if pi >= len(ps) || ps[pi].Value != segs[i] || segs[i] == "" || len(segs[i]) > r.MaxParamLength {
					t.Fatalf("%q on %q: params %v, segment %q", path, pattern, ps, segs[i])
				}
				pi++
			case seg != segs[i]:
				t.Fatalf("%q matched %q at segment %d", path, pattern, i)
			}
		}
		if pi != len(ps) {
			t.Fatalf("%q on %q: %d params for %d places", path, pattern, len(ps), pi)
		}
	})
}
