package bench

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	"golang.org/x/time/rate"

	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// The per-IP limiters as net/http middleware, every request allowed (the
// common case), from many client addresses at once: Burrow's memory
// store (GCRA, sharded, bounded), go-chi/httprate (sliding window) and
// the map of x/time/rate limiters a team writes by hand (one lock,
// unbounded).
//
//	cd bench && go test -run XXX -bench RateLimit -benchmem

// rateLimitClients is how many client addresses the requests come from.
const rateLimitClients = 65536

// rateLimitMax is each limiter's limit per minute: the most the
// ratelimit plugin takes (one request a microsecond), never reached.
const rateLimitMax = 60_000_000

func rateLimitRequests() []*http.Request {
	reqs := make([]*http.Request, rateLimitClients)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/", nil)
		reqs[i].RemoteAddr = "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255) + ":4711"
	}
	return reqs
}

// headerSink is a ResponseWriter keeping only its header map, cleared
// between requests.
type headerSink struct{ h http.Header }

func (s *headerSink) Header() http.Header         { return s.h }
func (s *headerSink) Write(p []byte) (int, error) { return len(p), nil }
func (s *headerSink) WriteHeader(int)             {}

func benchLimiter(b *testing.B, mw func(http.Handler) http.Handler) {
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	reqs := rateLimitRequests()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &headerSink{h: http.Header{}}
		i := 0
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, reqs[i%len(reqs)])
			i += 7919
		}
	})
}

func BenchmarkRateLimitBurrow(b *testing.B) {
	l, err := ratelimit.New(ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: rateLimitMax, Window: time.Minute, Key: ratelimit.ByIP()}))
	if err != nil {
		b.Fatal(err)
	}
	benchLimiter(b, l.Middleware)
}

// BenchmarkRateLimitHttprate keys httprate by the connection's address,
// as Burrow's ByIP does with no trusted proxy.
func BenchmarkRateLimitHttprate(b *testing.B) {
	benchLimiter(b, httprate.LimitBy(rateLimitMax, time.Minute, func(r *http.Request) (string, error) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		return httprate.CanonicalizeIP(host), nil
	}))
}

func BenchmarkRateLimitXTimeRate(b *testing.B) {
	var mu sync.Mutex
	limiters := map[string]*rate.Limiter{}
	benchLimiter(b, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := r.RemoteAddr[:len(r.RemoteAddr)-len(":4711")]
			mu.Lock()
			l, ok := limiters[ip]
			if !ok {
				l = rate.NewLimiter(rate.Limit(rateLimitMax)/60, rateLimitMax)
				limiters[ip] = l
			}
			mu.Unlock()
			if !l.Allow() {
				http.Error(w, "too many requests", http.StatusTooManyRequests)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
}
