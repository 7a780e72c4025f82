package ratelimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// The limiter's cost under many keys: allocations only here (run with
// -benchmem -benchtime=2000x); the timings are the lead's to run on a
// quiet machine.

const benchKeys = 100_000

func BenchmarkMemoryTakeManyKeys(b *testing.B) {
	m := ratelimit.NewMemory(ratelimit.MaxKeys(benchKeys / 2)) // evicting as it goes
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "ip:" + strconv.Itoa(i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			_, _ = m.Take(ctx, keys[i%benchKeys], 60, time.Minute)
			i += 7919
		}
	})
}

func BenchmarkMiddlewareManyIPs(b *testing.B) {
	l, err := ratelimit.New(ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 60, Window: time.Minute, Key: ratelimit.ByIP()}))
	if err != nil {
		b.Fatal(err)
	}
	h := l.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	reqs := make([]*http.Request, 1024)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/", nil)
		reqs[i].RemoteAddr = "10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256) + ":1234"
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		i := 0
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, reqs[i%len(reqs)])
			i++
		}
	})
}

// discard is a ResponseWriter that keeps nothing but its header map.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}
