package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/burrow-go/burrow/app"
)

// etagRoute is /three registered with app.Get and opts, so that
// BenchmarkETag's rows differ from BenchmarkThreeRoute by the options
// only.
func etagRoute(b testing.TB, opts ...app.RouteOption) *app.Server {
	return threeServerRoute(b, nil, func(g *app.Server) error {
		return app.Get(g, "/three", func(_ context.Context, v threeValues) (threeBody, error) {
			return threeBody{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar}, nil
		}, opts...)
	})
}

// BenchmarkETag is GET /three in process, with allocations: answered 200
// without ETag (the baseline), 200 with an ETag hashed from the body and
// Cache-Control, and 304 to the same GET carrying that tag in
// If-None-Match (the cached GET of a browser revalidating).
//
//	go test -run XXX -bench '^BenchmarkETag$' -benchmem -count 6 ./app
func BenchmarkETag(b *testing.B) {
	opts := []app.RouteOption{app.ETag(), app.CacheControl("private, no-cache")}
	b.Run("200-plain", func(b *testing.B) { benchConditional(b, etagRoute(b), "", http.StatusOK) })
	b.Run("200-etag", func(b *testing.B) { benchConditional(b, etagRoute(b, opts...), "", http.StatusOK) })
	b.Run("304", func(b *testing.B) {
		s := etagRoute(b, opts...)
		w := &discard{h: http.Header{}}
		s.ServeHTTP(w, httptest.NewRequest("GET", "/three", nil))
		benchConditional(b, s, w.h.Get("ETag"), http.StatusNotModified)
	})
}

// benchConditional runs GET /three on h with If-None-Match inm (none
// when empty), checking first that it answers want.
func benchConditional(b *testing.B, h http.Handler, inm string, want int) {
	req := httptest.NewRequest("GET", "/three", nil)
	if inm != "" {
		req.Header.Set("If-None-Match", inm)
	}
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	if got := max(w.status, http.StatusOK); got != want {
		b.Fatalf("status %d, want %d", got, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// TestETagAllocations: a route with ETag costs two allocations more
// than one without (the tag's string and the header's slice holding it;
// Cache-Control's is shared), and its 304 no more than its 200. Counts,
// never times.
func TestETagAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	opts := []app.RouteOption{app.ETag(), app.CacheControl("private, no-cache")}
	count := func(s *app.Server, inm string) float64 {
		req := httptest.NewRequest("GET", "/three", nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		w := &discard{h: http.Header{}}
		return testing.AllocsPerRun(200, func() { w.reset(); s.ServeHTTP(w, req) })
	}
	plain, tagged := etagRoute(t), etagRoute(t, opts...)
	w := &discard{h: http.Header{}}
	tagged.ServeHTTP(w, httptest.NewRequest("GET", "/three", nil))
	tag := w.h.Get("ETag")
	base, with, notModified := count(plain, ""), count(tagged, ""), count(tagged, tag)
	t.Logf("allocations: %v without ETag, %v with, %v for the 304", base, with, notModified)
	if with > base+2 || notModified > with {
		t.Errorf("allocations: %v without ETag, %v with, %v for the 304", base, with, notModified)
	}
}
