// Package bench compares Burrow's router and dispatch with other Go
// routers on the same route sets. httprouter is absent: it refuses this
// set (a static segment next to a parameter, as in /gists/public and
// /gists/:id). It is a module of its own so that the
// framework's go.mod keeps only dig, zap and testify.
//
//	cd bench && go test -run XXX -bench . -benchmem
package bench

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// githubPaths is the route set shared with httpx's own benchmarks.
func githubPaths(tb testing.TB) []string {
	b, err := os.ReadFile("../httpx/testdata/github-api.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// requestPath fills a pattern's parameters with values.
func requestPath(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "v" + s[1:]
		}
	}
	return strings.Join(segs, "/")
}

// braces rewrites ":name" to "{name}" for chi and net/http.
func braces(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// sink is a ResponseWriter that keeps nothing, so the benchmarks measure
// routing and dispatch.
type sink struct{ h http.Header }

func (w *sink) Header() http.Header         { return w.h }
func (w *sink) Write(p []byte) (int, error) { return len(p), nil }
func (w *sink) WriteHeader(int)             {}

type router struct {
	name  string
	build func(tb testing.TB, patterns []string) http.Handler
}

var routers = []router{
	{"burrow", func(tb testing.TB, patterns []string) http.Handler {
		s := app.New()
		h := func(*httpx.Request, *httpx.Reply) error { return nil }
		for _, p := range patterns {
			if err := s.Get(p, h); err != nil {
				tb.Fatal(err)
			}
		}
		if err := s.Ready(); err != nil {
			tb.Fatal(err)
		}
		return s
	}},
	{"chi", func(tb testing.TB, patterns []string) http.Handler {
		r := chi.NewRouter()
		h := func(http.ResponseWriter, *http.Request) {}
		for _, p := range patterns {
			r.Get(braces(p), h)
		}
		return r
	}},
	{"servemux", func(tb testing.TB, patterns []string) http.Handler {
		r := http.NewServeMux()
		h := func(http.ResponseWriter, *http.Request) {}
		for _, p := range patterns {
			r.HandleFunc("GET "+braces(p), h)
		}
		return r
	}},
	{"echo", func(tb testing.TB, patterns []string) http.Handler {
		e := echo.New()
		h := func(echo.Context) error { return nil }
		for _, p := range patterns {
			e.GET(p, h)
		}
		return e
	}},
	{"gin", func(tb testing.TB, patterns []string) http.Handler {
		gin.SetMode(gin.ReleaseMode)
		r := gin.New()
		h := func(*gin.Context) {}
		for _, p := range patterns {
			r.GET(p, h)
		}
		return r
	}},
}

// serve runs every path through h, one request per iteration.
func serve(b *testing.B, h http.Handler, paths []string) {
	reqs := make([]*http.Request, len(paths))
	for i, p := range paths {
		reqs[i], _ = http.NewRequest("GET", p, nil)
		reqs[i].RequestURI = p
	}
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		h.ServeHTTP(w, reqs[i%len(reqs)])
		i++
	}
}

// BenchmarkGitHubAll serves the GitHub API's routes in turn, each with its
// parameters filled.
func BenchmarkGitHubAll(b *testing.B) {
	patterns := githubPaths(b)
	var paths []string
	for _, p := range patterns {
		paths = append(paths, requestPath(p))
	}
	for _, r := range routers {
		b.Run(r.name, func(b *testing.B) { serve(b, r.build(b, patterns), paths) })
	}
}

// BenchmarkGitHubStatic and BenchmarkGitHubParam serve one static and one
// parametric route of the same set.
func BenchmarkGitHubStatic(b *testing.B) {
	patterns := githubPaths(b)
	for _, r := range routers {
		b.Run(r.name, func(b *testing.B) { serve(b, r.build(b, patterns), []string{"/user/repos"}) })
	}
}

func BenchmarkGitHubParam(b *testing.B) {
	patterns := githubPaths(b)
	for _, r := range routers {
		b.Run(r.name, func(b *testing.B) { serve(b, r.build(b, patterns), []string{"/repos/burrow-go/burrow/issues/7"}) })
	}
}

// TestEveryRouterServesEveryPath guards the comparison: a router that
// 404s would look fast.
func TestEveryRouterServesEveryPath(t *testing.T) {
	patterns := githubPaths(t)
	for _, r := range routers {
		h := r.build(t, patterns)
		for _, p := range patterns {
			rec := &status{sink: sink{h: http.Header{}}, code: 200}
			req, _ := http.NewRequest("GET", requestPath(p), nil)
			req.RequestURI = requestPath(p)
			h.ServeHTTP(rec, req)
			if rec.code != 200 {
				t.Errorf("%s: %s answered %d", r.name, p, rec.code)
			}
		}
	}
}

type status struct {
	sink
	code int
}

func (w *status) WriteHeader(code int) { w.code = code }
