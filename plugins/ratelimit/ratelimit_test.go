package ratelimit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

func ok() (string, error) { return "ok", nil }

// clock is a settable time for the memory store.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) now() time.Time           { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration)      { c.ns.Add(int64(d)) }
func (c *clock) store() *ratelimit.Memory { return ratelimit.NewMemory(ratelimit.Clock(c.now)) }

// placements are the limiter's two places: a middleware, a hook.
var placements = []struct {
	name string
	opts []ratelimit.Option
}{
	{"middleware", nil},
	{"hook", []ratelimit.Option{ratelimit.AsHook(app.OnRequest)}},
}

func perIP(limit int) ratelimit.Policy {
	return ratelimit.Policy{Name: "ip", Limit: limit, Window: time.Minute, Key: ratelimit.ByIP()}
}

// server serves /a and /b in the root context, with the plugin made of
// opts, and /other in a sibling context without it.
func server(t *testing.T, opts ...ratelimit.Option) *app.Server {
	t.Helper()
	s := apptest.New(t)
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(opts...))
		s.Get("/a", ok)
		return s.Post("/b", ok)
	}, app.Name("api")))
	require.NoError(t, s.Register(func(s *app.Server) error { return s.Get("/other", ok) }, app.Name("public")))
	require.NoError(t, s.Ready())
	return s
}

func get(t *testing.T, s *app.Server, target string, header ...string) *apptest.Response {
	t.Helper()
	return apptest.Get(t, s, target, header...)
}

func TestLimitAnswers429InTheErrorShape(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := server(t, ratelimit.Limit(perIP(2)), ratelimit.WithStore(c.store()))

	r := get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, []string{`"ip";q=2;w=60`}, r.Header.Values("RateLimit-Policy"))
	assert.Equal(t, []string{`"ip";r=1;t=30`}, r.Header.Values("RateLimit"))

	r = get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, `"ip";r=0;t=60`, r.Header.Get("RateLimit"))

	r = get(t, s, "/a")
	require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.JSONEq(t, `{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 30 seconds"}`, r.Body)
	assert.Equal(t, "30", r.Header.Get("Retry-After"))
	assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
	assert.Equal(t, `"ip";q=2;w=60`, r.Header.Get("RateLimit-Policy"))
	assert.Equal(t, `"ip";r=0;t=60`, r.Header.Get("RateLimit"))

	c.add(29 * time.Second)
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	assert.Equal(t, "Rate limit exceeded, retry in 1 second", decodeMessage(t, r))

	c.add(time.Second)
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode, "one request back after window/limit")
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/b").StatusCode, "every route of the context spends one budget")

	c.add(time.Minute)
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, `"ip";r=1;t=30`, r.Header.Get("RateLimit"), "a whole window later the whole quota is back")
}

func decodeMessage(t *testing.T, r *apptest.Response) string {
	var body httpx.ErrorBody
	r.JSON(t, &body)
	return body.Message
}

func TestLimitStaysInItsContext(t *testing.T) {
	t.Parallel()
	s := server(t, ratelimit.Limit(perIP(1)))
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/a").StatusCode)
	r := get(t, s, "/other")
	assert.Equal(t, http.StatusOK, r.StatusCode, "a sibling context is not limited")
	assert.Empty(t, r.Header.Values("RateLimit"))
}

func TestLimitKeysByClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      []ratelimit.Option
		first     string
		second    string
		separated bool
	}{
		{"two IPv4 clients", nil, "192.0.2.1:1000", "192.0.2.2:1000", true},
		{"one client, two ports", nil, "192.0.2.1:1000", "192.0.2.1:2000", false},
		{"IPv4 and the same address IPv4-mapped", nil, "192.0.2.1:1000", "[::ffff:192.0.2.1]:1000", false},
		{"two addresses of one /64", nil, "[2001:db8::1]:1000", "[2001:db8::2]:1000", false},
		{"two /64s", nil, "[2001:db8:0:1::1]:1000", "[2001:db8:0:2::1]:1000", true},
		{"two addresses keyed per address", []ratelimit.Option{ratelimit.IPv6Prefix(128)}, "[2001:db8::1]:1000", "[2001:db8::2]:1000", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := server(t, append(tt.opts, ratelimit.Limit(perIP(1)))...)
			from := func(addr string) int {
				req := httptest.NewRequest(http.MethodGet, "/a", nil)
				req.RemoteAddr = addr
				return apptest.Inject(t, s, req).StatusCode
			}
			require.Equal(t, http.StatusOK, from(tt.first))
			want := http.StatusTooManyRequests
			if tt.separated {
				want = http.StatusOK
			}
			assert.Equal(t, want, from(tt.second))
		})
	}
}

func TestLimitAllowListAndSkip(t *testing.T) {
	t.Parallel()
	s := server(t, ratelimit.Limit(perIP(1)),
		ratelimit.Allow(netip.MustParsePrefix("192.0.2.0/24")),
		ratelimit.Skip(func(r *http.Request) bool { return r.Header.Get("X-Internal") == "yes" }))
	for range 3 {
		r := get(t, s, "/a")
		assert.Equal(t, http.StatusOK, r.StatusCode, "an allowed address is never limited")
		assert.Empty(t, r.Header.Get("RateLimit"), "nor told of a limit")
	}
	from := func(header ...string) int {
		req := httptest.NewRequest(http.MethodGet, "/a", nil)
		req.RemoteAddr = "198.51.100.7:1000"
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return apptest.Inject(t, s, req).StatusCode
	}
	assert.Equal(t, http.StatusOK, from())
	assert.Equal(t, http.StatusTooManyRequests, from())
	assert.Equal(t, http.StatusOK, from("X-Internal", "yes"))
}

func TestLimitBans(t *testing.T) {
	t.Parallel()
	c := newClock()
	var mu sync.Mutex
	var refusals []string
	s := server(t, ratelimit.Limit(perIP(1)), ratelimit.Ban(2), ratelimit.WithStore(c.store()),
		ratelimit.OnRefused(func(r *http.Request, policy string, banned bool) {
			mu.Lock()
			defer mu.Unlock()
			refusals = append(refusals, policy+" "+r.URL.Path+" "+strconv.FormatBool(banned))
		}))
	want := []int{200, 429, 429, 403, 403}
	for i, w := range want {
		r := get(t, s, "/a")
		assert.Equal(t, w, r.StatusCode, "request %d", i+1)
		if w == 403 {
			assert.Equal(t, "60", r.Header.Get("Retry-After"))
			assert.Contains(t, r.Body, `"statusCode":403`)
		}
	}
	mu.Lock()
	assert.Equal(t, []string{"ip /a false", "ip /a false", "ip /a true", "ip /a true"}, refusals, "OnRefused hears of each refusal")
	mu.Unlock()
	c.add(time.Minute)
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode, "the ban ends with the refusals")
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/a").StatusCode, "and its count starts again")
}

func TestLimitByRequestValue(t *testing.T) {
	t.Parallel()
	apiKey := ratelimit.ByRequest(func(r *http.Request) string { return r.Header.Get("X-Api-Key") })
	s := server(t, ratelimit.Limit(ratelimit.Policy{Name: "key", Limit: 1, Window: time.Second, Key: apiKey}),
		ratelimit.WithStore(newClock().store()))
	assert.Equal(t, http.StatusOK, get(t, s, "/a", "X-Api-Key", "one").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/a", "X-Api-Key", "one").StatusCode)
	r := get(t, s, "/a", "X-Api-Key", "two")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, `"key";q=1;w=1`, r.Header.Get("RateLimit-Policy"))
	for range 3 {
		assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode, "a request without a key is not limited by the policy")
	}
}

type user struct{ Name string }

// authenticate is an auth hook: "Authorization: <name>" sets the user.
func authenticate(req *httpx.Request, rep *httpx.Reply) error {
	name := req.Header("Authorization")
	if name == "" {
		return rep.Code(http.StatusUnauthorized).Send(map[string]string{"error": "who?"})
	}
	return req.SetDecorator("user", &user{Name: name})
}

func perUser(limit int) ratelimit.Policy {
	return ratelimit.Policy{Name: "user", Limit: limit, Window: time.Minute,
		Key: ratelimit.ByDecorator("user", func(u *user) string {
			if u == nil {
				return ""
			}
			return u.Name
		})}
}

func TestLimitPerUserAfterAuthAndPerIPBefore(t *testing.T) {
	t.Parallel()
	c := newClock() // frozen: the header values are exact
	s := apptest.New(t)
	s.DecorateRequest("user", (*user)(nil))
	s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(5)), ratelimit.WithStore(c.store())))
	s.Register(func(s *app.Server) error {
		s.AddHook(app.OnRequest, authenticate, app.SetsDecorators("user"))
		s.Register(ratelimit.Plugin(ratelimit.Limit(perUser(2)), ratelimit.AsHook(app.OnRequest), ratelimit.WithStore(c.store())))
		return s.Get("/me", ok)
	}, app.Name("api"))
	require.NoError(t, s.Ready())

	r := get(t, s, "/me", "Authorization", "alice")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, []string{`"ip";q=5;w=60`, `"user";q=2;w=60`}, r.Header.Values("RateLimit-Policy"))
	assert.Equal(t, []string{`"ip";r=4;t=12`, `"user";r=1;t=30`}, r.Header.Values("RateLimit"))
	assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "alice").StatusCode)
	r = get(t, s, "/me", "Authorization", "alice")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode, "alice's third")
	assert.Equal(t, `"user";r=0;t=60`, r.Header.Values("RateLimit")[1])
	assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "bob").StatusCode, "bob has his own budget")

	r = get(t, s, "/me")
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode, "a refusal by auth spends the IP budget…")
	assert.Equal(t, []string{`"ip";r=0;t=60`}, r.Header.Values("RateLimit"), "…and no user budget")
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/me", "Authorization", "carol").StatusCode, "the IP's budget is spent")
}

func TestLimitByDecoratorIsCheckedAtReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(s *app.Server) error { return s.DecorateRequest("user", (*user)(nil)) }, app.Name("auth"))
	s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(ratelimit.Limit(perUser(1)), ratelimit.AsHook(app.PreHandler)))
		return s.Get("/me", ok)
	}, app.Name("api"))
	err := s.Ready()
	require.Error(t, err)
	assert.ErrorIs(t, err, app.ErrMissingDecorator)
	assert.Contains(t, err.Error(), `ratelimit:user`)
	assert.Contains(t, err.Error(), `"user"`)
}

func TestLimitOptionsAreChecked(t *testing.T) {
	t.Parallel()
	key := ratelimit.ByIP()
	tests := []struct {
		name string
		opts []ratelimit.Option
		want string
	}{
		{"no policy", nil, "no policy"},
		{"empty name", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Limit: 1, Window: time.Second, Key: key})}, `invalid policy name ""`},
		{"quote in the name", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: `a"b`, Limit: 1, Window: time.Second, Key: key})}, `invalid policy name`},
		{"limit 0", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Window: time.Second, Key: key})}, "limit 0 is below 1"},
		{"window below a second", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Limit: 1, Window: time.Millisecond, Key: key})}, "not a whole number of seconds"},
		{"window of 1.5 s", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Limit: 1, Window: 1500 * time.Millisecond, Key: key})}, "not a whole number of seconds"},
		{"window over a year", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Limit: 1, Window: 367 * 24 * time.Hour, Key: key})}, "longer than"},
		{"more than one a microsecond", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Limit: 1_000_001, Window: time.Second, Key: key})}, "more than one a microsecond"},
		{"no key", []ratelimit.Option{ratelimit.Limit(ratelimit.Policy{Name: "a", Limit: 1, Window: time.Second})}, "has no key"},
		{"two policies of one name", []ratelimit.Option{ratelimit.Limit(perIP(1), perIP(2))}, `two policies named "ip"`},
		{"decorator in a middleware", []ratelimit.Option{ratelimit.Limit(perUser(1))}, "needs AsHook"},
		{"negative ban", []ratelimit.Option{ratelimit.Limit(perIP(1)), ratelimit.Ban(-1)}, "negative"},
		{"nil store", []ratelimit.Option{ratelimit.Limit(perIP(1)), ratelimit.WithStore(nil)}, "nil store"},
		{"IPv6 prefix 0", []ratelimit.Option{ratelimit.Limit(perIP(1)), ratelimit.IPv6Prefix(0)}, "not within"},
		{"invalid allow prefix", []ratelimit.Option{ratelimit.Limit(perIP(1)), ratelimit.Allow(netip.Prefix{})}, "invalid prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ratelimit.New(tt.opts...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			s := app.New()
			err = s.Register(ratelimit.Plugin(tt.opts...))
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe, "Register refuses the plugin")
		})
	}
}

func TestLimitCountsNotFoundAnd405(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(3)), ratelimit.WithStore(newClock().store())))
	s.Get("/a", ok)
	require.NoError(t, s.Ready())
	r := get(t, s, "/guess-1")
	assert.Equal(t, http.StatusNotFound, r.StatusCode)
	assert.Equal(t, `"ip";r=2;t=20`, r.Header.Get("RateLimit"), "an unknown path spends the budget")
	r = apptest.Do(t, s, http.MethodDelete, "/a", nil)
	assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode)
	assert.Equal(t, `"ip";r=1;t=40`, r.Header.Get("RateLimit"), "so does a 405")
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/guess-2").StatusCode, "guessing stops at the limit")
}

func TestLimitCountsAPrefixedContextsNotFound(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(1))))
		s.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("no") })
		return s.Get("/a", ok)
	}, app.Prefix("/v1"))
	require.NoError(t, s.Ready())
	assert.Equal(t, http.StatusNotFound, get(t, s, "/v1/guess").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/v1/guess").StatusCode)
	assert.Equal(t, http.StatusNotFound, get(t, s, "/elsewhere").StatusCode, "outside the prefix the context's limit does not apply")
}

func TestLimitHeadRefusalHasNoBody(t *testing.T) {
	t.Parallel()
	s := server(t, ratelimit.Limit(perIP(1)))
	require.Equal(t, http.StatusOK, apptest.Do(t, s, http.MethodHead, "/a", nil).StatusCode)
	r := apptest.Do(t, s, http.MethodHead, "/a", nil)
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.Empty(t, r.Body)
	assert.NotEmpty(t, r.Header.Get("Retry-After"))
}

func TestLimitSeveralPoliciesAtOnce(t *testing.T) {
	t.Parallel()
	c := newClock()
	burst := ratelimit.Policy{Name: "burst", Limit: 2, Window: time.Second, Key: ratelimit.ByIP()}
	s := server(t, ratelimit.Limit(burst, perIP(3)), ratelimit.WithStore(c.store()))
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	r := get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, []string{`"burst";r=0;t=1`, `"ip";r=1;t=40`}, r.Header.Values("RateLimit"))
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode, "the burst policy refuses")
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	assert.Equal(t, []string{`"burst";r=0;t=1`, `"ip";r=0;t=60`}, r.Header.Values("RateLimit"),
		"a policy that lets a request through counts it, whatever another says")
	c.add(time.Second)
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode, "the minute policy refuses")
	assert.Equal(t, "19", r.Header.Get("Retry-After"), "the longest wait of the refusing policies")
}

// failingStore fails while down is set.
type failingStore struct {
	ratelimit.Store
	down atomic.Bool
}

func (f *failingStore) Take(ctx context.Context, key string, limit int, window time.Duration) (ratelimit.Decision, error) {
	if f.down.Load() {
		return ratelimit.Decision{}, errors.New("store unreachable")
	}
	return f.Store.Take(ctx, key, limit, window)
}

func TestLimitStoreFailureAnswers503AndLogsOncePerOutage(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	store := &failingStore{Store: ratelimit.NewMemory()}
	s := apptest.New(t, app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
	s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(100)), ratelimit.WithStore(store)))
	s.Get("/a", ok)
	require.NoError(t, s.Ready())

	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	store.down.Store(true)
	for range 3 {
		r := get(t, s, "/a")
		assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
		assert.Equal(t, "1", r.Header.Get("Retry-After"))
		assert.JSONEq(t, `{"statusCode":503,"error":"Service Unavailable","message":"Rate limit unavailable"}`, r.Body)
	}
	store.down.Store(false)
	assert.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	store.down.Store(true)
	get(t, s, "/a")

	warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
	require.Len(t, warns, 2, "one line per outage")
	assert.Contains(t, warns[0].Message, "rate limit store failing")
	assert.Len(t, logs.FilterMessage("rate limit store answers again").All(), 1)
}

func TestMemoryStoreIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	m := ratelimit.NewMemory()
	var passed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				d, err := m.Take(context.Background(), "k", 50, time.Hour)
				if err == nil && d.Allowed {
					passed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(50), passed.Load())
}

func TestMemoryStoreIsBounded(t *testing.T) {
	t.Parallel()
	c := newClock()
	// 16 keys a shard.
	m := ratelimit.NewMemory(ratelimit.MaxKeys(1024), ratelimit.Clock(c.now))
	ctx := context.Background()
	for i := range 20000 {
		_, err := m.Take(ctx, "flood-"+strconv.Itoa(i), 1, time.Hour)
		require.NoError(t, err)
	}
	assert.Equal(t, 1024, m.Len(), "a flood of keys costs fixed memory")

	// An hour later every flood key's quota is whole: those entries are
	// evicted first. With at most 7 live keys a shard, every sample of 8
	// holds a spent one, so the live key stays.
	c.add(time.Hour)
	_, err := m.Take(ctx, "live", 1, time.Hour)
	require.NoError(t, err)
	for i := range 6 {
		_, err := m.Take(ctx, "new-"+strconv.Itoa(i), 1, time.Hour)
		require.NoError(t, err)
	}
	d, err := m.Take(ctx, "live", 1, time.Hour)
	require.NoError(t, err)
	assert.False(t, d.Allowed, "the live key was kept while spent ones were evicted")
	assert.Equal(t, 1, d.Denied)
	assert.Equal(t, 1024, m.Len())
}

// keyStore records the keys it is given.
type keyStore struct {
	ratelimit.Store
	mu   sync.Mutex
	keys []string
}

func (k *keyStore) Take(ctx context.Context, key string, limit int, window time.Duration) (ratelimit.Decision, error) {
	k.mu.Lock()
	k.keys = append(k.keys, key)
	k.mu.Unlock()
	return k.Store.Take(ctx, key, limit, window)
}

func TestLongKeysAreHashed(t *testing.T) {
	t.Parallel()
	store := &keyStore{Store: ratelimit.NewMemory()}
	apiKey := ratelimit.ByRequest(func(r *http.Request) string { return r.Header.Get("X-Api-Key") })
	s := server(t, ratelimit.WithStore(store), ratelimit.Limit(ratelimit.Policy{Name: "key", Limit: 1, Window: time.Minute, Key: apiKey}))
	long := strings.Repeat("k", 4096)
	assert.Equal(t, http.StatusOK, get(t, s, "/a", "X-Api-Key", long).StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/a", "X-Api-Key", long).StatusCode, "one long key is one budget")
	assert.Equal(t, http.StatusOK, get(t, s, "/a", "X-Api-Key", long+"x").StatusCode, "another long key is another")
	assert.Equal(t, http.StatusOK, get(t, s, "/a", "X-Api-Key", "short").StatusCode)
	require.Len(t, store.keys, 4)
	for _, k := range store.keys[:3] {
		assert.LessOrEqual(t, len(k), 64, "a client's long key is stored as its hash")
	}
	assert.Equal(t, "key:short", store.keys[3])
}

func TestLimitOneRoute(t *testing.T) {
	t.Parallel()
	// A route-level limit: the limiter's hook on one route only (a login).
	login, err := ratelimit.New(ratelimit.AsHook(app.OnRequest), ratelimit.WithStore(newClock().store()),
		ratelimit.Limit(ratelimit.Policy{Name: "login", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()}))
	require.NoError(t, err)
	s := apptest.New(t)
	s.Post("/session", ok, app.WithHook(app.OnRequest, login.Hook))
	s.Get("/a", ok)
	require.NoError(t, s.Ready())
	assert.Equal(t, http.StatusOK, apptest.Do(t, s, http.MethodPost, "/session", nil).StatusCode)
	r := apptest.Do(t, s, http.MethodPost, "/session", nil)
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.JSONEq(t, `{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 60 seconds"}`, r.Body)
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Empty(t, r.Header.Get("RateLimit"), "other routes are not limited")
}

func TestExemptRoutes(t *testing.T) {
	t.Parallel()
	for _, placement := range placements {
		t.Run(placement.name, func(t *testing.T) {
			t.Parallel()
			burst := ratelimit.Policy{Name: "burst", Limit: 1, Window: time.Second, Key: ratelimit.ByIP()}
			s := apptest.New(t)
			s.Register(ratelimit.Plugin(append(placement.opts, ratelimit.Limit(burst, perIP(2)))...))
			s.Get("/healthz", ok, app.WithConfig(ratelimit.Exempt{}))
			s.Get("/feed", ok, app.WithConfig(ratelimit.Exempt{Policies: []string{"burst"}}))
			s.Get("/a", ok)
			require.NoError(t, s.Ready())
			for range 3 {
				r := get(t, s, "/healthz")
				assert.Equal(t, http.StatusOK, r.StatusCode, "an exempt route")
				assert.Empty(t, r.Header.Values("RateLimit"))
				assert.Equal(t, http.StatusOK, apptest.Do(t, s, http.MethodHead, "/healthz", nil).StatusCode, "and its HEAD twin")
			}
			r := get(t, s, "/feed")
			assert.Equal(t, http.StatusOK, r.StatusCode)
			assert.Equal(t, []string{`"ip";r=1;t=30`}, r.Header.Values("RateLimit"), "exempt from burst only")
			assert.Equal(t, http.StatusOK, get(t, s, "/feed").StatusCode, "burst does not count /feed")
			assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/a").StatusCode, "ip does")
		})
	}
}

func TestExemptWithoutThePluginFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(1))))
		return s.Get("/a", ok)
	}, app.Name("limited"))
	s.Get("/healthz", ok, app.WithConfig(ratelimit.Exempt{}))
	err := s.Ready()
	assert.ErrorIs(t, err, app.ErrUnreadConfig, "the route is in no rate-limited context: the exemption is a mistake")
}

func TestPerIPBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, placement := range placements {
		t.Run(placement.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t, app.WithTrustedProxies("127.0.0.1/32"))
			s.Register(ratelimit.Plugin(append(placement.opts, ratelimit.Limit(perIP(1)))...))
			s.Get("/a", ok)
			require.NoError(t, s.Ready())
			from := func(peer, xff string) int {
				req := httptest.NewRequest(http.MethodGet, "/a", nil)
				req.RemoteAddr = peer
				req.Header.Set("X-Forwarded-For", xff)
				return apptest.Inject(t, s, req).StatusCode
			}
			assert.Equal(t, http.StatusOK, from("127.0.0.1:1000", "198.51.100.1"))
			assert.Equal(t, http.StatusOK, from("127.0.0.1:1000", "198.51.100.2"), "behind the proxy, each client has its budget")
			assert.Equal(t, http.StatusTooManyRequests, from("127.0.0.1:1000", "6.6.6.6, 198.51.100.1"), "the right-most untrusted address counts")
			assert.Equal(t, http.StatusOK, from("192.0.2.50:1000", "198.51.100.3"))
			assert.Equal(t, http.StatusTooManyRequests, from("192.0.2.50:1000", "198.51.100.4"), "a forged header from an untrusted peer is ignored")
		})
	}
}

func TestAClientLeavingIsNoStoreOutage(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	store := &failingStore{Store: ratelimit.NewMemory()}
	store.down.Store(true)
	l, err := ratelimit.New(ratelimit.Limit(perIP(10)), ratelimit.WithStore(store), ratelimit.Logger(zap.New(core)))
	require.NoError(t, err)
	h := l.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Zero(t, logs.Len(), "a failure for a client that left logs nothing")
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, 1, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "a real failure does")
}

func TestLimitPerKey(t *testing.T) {
	t.Parallel()
	apiKey := ratelimit.ByRequest(func(r *http.Request) string { return r.Header.Get("Api-Key") })
	tiers := ratelimit.Policy{Name: "key", Limit: 2, Window: 10 * time.Second, Key: apiKey,
		LimitFor: func(key string) int {
			switch key {
			case "pro":
				return 3
			case "broken":
				return -1 // a bad answer means Limit
			}
			return 0
		}}
	s := server(t, ratelimit.Limit(tiers), ratelimit.WithStore(newClock().store()))
	steps := []struct {
		key    string
		status int
		policy string
	}{
		{"pro", 200, `"key";q=3;w=10`}, {"pro", 200, `"key";q=3;w=10`}, {"pro", 200, `"key";q=3;w=10`}, {"pro", 429, `"key";q=3;w=10`},
		{"NOT", 200, `"key";q=2;w=10`}, {"NOT", 200, `"key";q=2;w=10`}, {"NOT", 429, `"key";q=2;w=10`},
		{"broken", 200, `"key";q=2;w=10`}, {"broken", 200, `"key";q=2;w=10`}, {"broken", 429, `"key";q=2;w=10`},
	}
	for i, st := range steps {
		r := get(t, s, "/a", "Api-Key", st.key)
		assert.Equal(t, st.status, r.StatusCode, "step %d", i+1)
		assert.Equal(t, st.policy, r.Header.Get("RateLimit-Policy"), "step %d", i+1)
	}
}

func TestNoHeaders(t *testing.T) {
	t.Parallel()
	s := server(t, ratelimit.Limit(perIP(1)), ratelimit.NoHeaders())
	r := get(t, s, "/a")
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Empty(t, r.Header.Values("RateLimit-Policy"))
	assert.Empty(t, r.Header.Values("RateLimit"))
	r = get(t, s, "/a")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.Empty(t, r.Header.Values("RateLimit"))
	assert.NotEmpty(t, r.Header.Get("Retry-After"), "a refusal still says when to come back")
}

func TestARefusalStopsTheLifecycle(t *testing.T) {
	t.Parallel()
	var hooks, handled atomic.Int64
	s := apptest.New(t)
	s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(1))))
	s.AddHook(app.OnRequest, func() error { hooks.Add(1); return nil })
	s.AddHook(app.PreValidation, func() error { hooks.Add(1); return nil })
	s.Get("/a", func() (string, error) { handled.Add(1); return "ok", nil })
	require.NoError(t, s.Ready())
	require.Equal(t, http.StatusOK, get(t, s, "/a").StatusCode)
	require.Equal(t, http.StatusTooManyRequests, get(t, s, "/a").StatusCode)
	assert.Equal(t, int64(2), hooks.Load(), "no hook ran for the refused request")
	assert.Equal(t, int64(1), handled.Load(), "nor the handler")
}

func TestHeadersUnderARequestTimeOut(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, app.WithRequestTimeout(time.Minute))
	s.Register(ratelimit.Plugin(ratelimit.Limit(perIP(2))))
	s.Get("/a", ok)
	require.NoError(t, s.Ready())
	r := get(t, s, "/a")
	assert.Equal(t, `"ip";q=2;w=60`, r.Header.Get("RateLimit-Policy"))
	assert.NotEmpty(t, r.Header.Get("RateLimit"))
}

func TestAnUnterminatedForwardedQuoteDoesNotHideTheClient(t *testing.T) {
	t.Parallel()
	// The client's Forwarded value opens a quote it never closes; the
	// proxy appends its own element to the same line. The proxy's element
	// must still be read: else the client is the proxy, which the
	// allow-list lets through.
	s := apptest.New(t, app.WithoutRequestLogging(),
		app.WithTrustedProxies("10.0.0.0/8"), app.WithClientIPHeader("Forwarded"))
	s.Register(ratelimit.Plugin(ratelimit.Allow(netip.MustParsePrefix("10.0.0.0/8")),
		ratelimit.Limit(ratelimit.Policy{Name: "login", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()})))
	s.Post("/login", func(req *httpx.Request) (string, error) { return req.ClientIP().String(), nil })
	require.NoError(t, s.Ready())
	login := func() *apptest.Response {
		req := httptest.NewRequest(http.MethodPost, "/login", nil)
		req.RemoteAddr = "10.0.0.1:5555"
		req.Header.Set("Forwarded", `for="198.51.100.9, for=203.0.113.7`)
		return apptest.Inject(t, s, req)
	}
	r := login()
	require.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "203.0.113.7", r.Body, "the address the proxy reported")
	assert.Equal(t, http.StatusTooManyRequests, login().StatusCode)
}

func TestByIPWithoutAnAddressSharesOneBudgetAndWarns(t *testing.T) {
	t.Parallel()
	for _, placement := range placements {
		t.Run(placement.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.WarnLevel)
			s := apptest.New(t, app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
			s.Register(ratelimit.Plugin(append(placement.opts,
				ratelimit.Limit(ratelimit.Policy{Name: "login", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()}))...))
			s.Post("/login", ok)
			require.NoError(t, s.Ready())
			from := func(peer string) int {
				req := httptest.NewRequest(http.MethodPost, "/login", nil)
				req.RemoteAddr = peer // a Unix socket's peer: no address
				return apptest.Inject(t, s, req).StatusCode
			}
			assert.Equal(t, http.StatusOK, from("@"))
			assert.Equal(t, http.StatusTooManyRequests, from(""), "every client without an address spends one budget")
			assert.Equal(t, http.StatusTooManyRequests, from("@"))
			assert.Equal(t, http.StatusOK, from("192.0.2.1:1"), "a client with an address has its own")

			warns := logs.All()
			require.Len(t, warns, 1, "one line, not one a request")
			assert.Contains(t, warns[0].Message, "no client address")
			assert.Equal(t, "login", warns[0].ContextMap()["policy"])
		})
	}
}

func TestRefusalsFollowProblemDetails(t *testing.T) {
	t.Parallel()
	for _, placement := range placements {
		t.Run(placement.name, func(t *testing.T) {
			t.Parallel()
			store := &failingStore{Store: ratelimit.NewMemory()}
			s := apptest.New(t, app.WithProblemDetails(), app.WithoutRequestLogging())
			s.Register(ratelimit.Plugin(append(placement.opts, ratelimit.Limit(perIP(1)), ratelimit.WithStore(store))...))
			s.Get("/a", ok)
			require.NoError(t, s.Ready())

			get(t, s, "/a")
			r := get(t, s, "/a")
			require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
			assert.Equal(t, httpx.ContentTypeProblem, r.Header.Get("Content-Type"))
			assert.JSONEq(t, `{"type":"about:blank","title":"Too Many Requests","status":429,"detail":"Rate limit exceeded, retry in 60 seconds","instance":"/a"}`, r.Body)
			assert.Equal(t, "60", r.Header.Get("Retry-After"))

			store.down.Store(true)
			r = get(t, s, "/a")
			require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
			assert.Equal(t, httpx.ContentTypeProblem, r.Header.Get("Content-Type"))
			assert.JSONEq(t, `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Rate limit unavailable","instance":"/a"}`, r.Body)
		})
	}
}

func TestRefusalBodyIsUnchangedByDefault(t *testing.T) {
	t.Parallel()
	for _, placement := range placements {
		t.Run(placement.name, func(t *testing.T) {
			t.Parallel()
			s := server(t, append(placement.opts, ratelimit.Limit(perIP(1)))...)
			get(t, s, "/a")
			r := get(t, s, "/a")
			require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
			assert.Equal(t, `{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 60 seconds"}`, r.Body, "byte for byte")
			assert.Equal(t, httpx.ContentTypeJSON, r.Header.Get("Content-Type"))
			assert.Equal(t, strconv.Itoa(len(r.Body)), r.Header.Get("Content-Length"))
		})
	}
}
