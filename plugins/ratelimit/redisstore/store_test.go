package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

func TestMain(m *testing.M) {
	// go-redis's pool keeps a goroutine per client until Close; the
	// clients of a test are closed in its Cleanup.
	goleak.VerifyTestMain(m)
}

var ctx = context.Background()

func TestScriptArithmetic(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	c := r.client(t)
	s := redisstore.New(c)
	for i := range 3 {
		d, err := s.Take(ctx, "k", 3, time.Minute)
		require.NoError(t, err)
		assert.True(t, d.Allowed, "request %d", i+1)
		assert.Equal(t, 2-i, d.Remaining)
		want := time.Duration(i+1) * 20 * time.Second
		assert.InDelta(t, float64(want), float64(d.Reset), float64(5*time.Second), "reset after request %d", i+1)
	}
	for i := range 2 {
		d, err := s.Take(ctx, "k", 3, time.Minute)
		require.NoError(t, err)
		assert.False(t, d.Allowed)
		assert.Equal(t, 0, d.Remaining)
		assert.Equal(t, i+1, d.Denied, "refusals in a row")
		assert.InDelta(t, float64(20*time.Second), float64(d.RetryAfter), float64(5*time.Second))
	}
	// The state is one hash under the prefix, with a TTL no longer than
	// the time to a whole quota (and a millisecond of margin).
	ttl, err := c.PTTL(ctx, "burrow:ratelimit:k").Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 50*time.Second)
	assert.LessOrEqual(t, ttl, time.Minute+2*time.Millisecond)
}

func TestScriptMatchesTheMemoryStore(t *testing.T) {
	t.Parallel()
	// 7 a minute does not divide evenly: both stores still pass exactly 7.
	r := startRedis(t)
	s := redisstore.New(r.client(t))
	passed := 0
	for range 12 {
		d, err := s.Take(ctx, "uneven", 7, time.Minute)
		require.NoError(t, err)
		if d.Allowed {
			passed++
		}
	}
	assert.Equal(t, 7, passed)
}

func TestKeysExpire(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	c := r.client(t)
	s := redisstore.New(c, redisstore.Prefix("test:"))
	d, err := s.Take(ctx, "short", 1, time.Second)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	ttl, err := c.PTTL(ctx, "test:short").Result()
	require.NoError(t, err, "under the given prefix")
	assert.Greater(t, ttl, time.Duration(0))
	assert.LessOrEqual(t, ttl, time.Second+2*time.Millisecond, "kept no longer than its quota takes to be whole")
	// Redis drops the key once its quota is whole: wait for that, then
	// the key starts afresh.
	require.Eventually(t, func() bool { return c.Exists(ctx, "test:short").Val() == 0 }, 10*time.Second, 20*time.Millisecond)
	d, err = s.Take(ctx, "short", 1, time.Second)
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, 0, d.Remaining)
	assert.Equal(t, 0, d.Denied)
}

// counter counts the commands a client sends to Redis.
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

func TestOneRoundTripPerDecision(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	c := r.client(t)
	var n counter
	c.AddHook(&n)
	s := redisstore.New(c)
	_, err := s.Take(ctx, "warm", 10, time.Minute) // EVALSHA, then EVAL: the script is new to this Redis
	require.NoError(t, err)
	n.n.Store(0)
	for range 100 {
		_, err := s.Take(ctx, "k", 10, time.Minute)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(100), n.n.Load(), "one command a decision")
}

// instance is a server with a per-IP limit on the given store.
func instance(t *testing.T, store ratelimit.Store, limit int, log *zap.Logger) *app.Server {
	t.Helper()
	opts := []app.Option{app.WithoutRequestLogging()}
	if log != nil {
		opts = append(opts, app.WithLogger(log))
	}
	s := apptest.New(t, opts...)
	s.Register(ratelimit.Plugin(ratelimit.WithStore(store), ratelimit.Limit(ratelimit.Policy{
		Name: "ip", Limit: limit, Window: time.Minute, Key: ratelimit.ByIP(),
	})))
	s.Get("/", func() (string, error) { return "ok", nil })
	require.NoError(t, s.Ready())
	return s
}

func TestTwoInstancesShareABudget(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	a := instance(t, redisstore.New(r.client(t)), 10, nil)
	b := instance(t, redisstore.New(r.client(t)), 10, nil)
	for i := range 10 {
		s := a
		if i%2 == 1 {
			s = b
		}
		res := apptest.Get(t, s, "/")
		require.Equal(t, http.StatusOK, res.StatusCode, "request %d", i+1)
		assert.Equal(t, `"ip";q=10;w=60`, res.Header.Get("RateLimit-Policy"))
	}
	for _, s := range []*app.Server{a, b} {
		res := apptest.Get(t, s, "/")
		assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the 11th, on either instance")
		assert.NotEmpty(t, res.Header.Get("Retry-After"))
	}
}

func TestRedisStoppedFailsOpen(t *testing.T) {
	t.Parallel()
	for _, how := range []struct {
		name       string
		stop, back func(*testing.T, *redisServer)
	}{
		{"SIGSTOP", func(t *testing.T, r *redisServer) { r.signal(t, syscall.SIGSTOP) }, func(t *testing.T, r *redisServer) { r.signal(t, syscall.SIGCONT) }},
	} {
		t.Run(how.name, func(t *testing.T) {
			t.Parallel()
			r := startRedis(t)
			core, logs := observer.New(zapcore.InfoLevel)
			store := redisstore.New(r.client(t), redisstore.Logger(zap.New(core)), redisstore.ProbeInterval(50*time.Millisecond))
			s := instance(t, store, 3, nil)
			require.Equal(t, http.StatusOK, apptest.Get(t, s, "/").StatusCode)

			how.stop(t, r)
			// Every request is answered, by the local store, each within
			// the client's time-out (no request waits for a retry).
			for range 5 {
				start := time.Now()
				res := apptest.Get(t, s, "/")
				// Bounded by the client's time-out (250 ms); go-redis's
				// defaults (3 s, three retries) would take 12 s.
				assert.Less(t, time.Since(start), 4*time.Second, "bounded by the client time-out")
				assert.Contains(t, []int{http.StatusOK, http.StatusTooManyRequests}, res.StatusCode)
				assert.NotEmpty(t, res.Header.Get("RateLimit"), "still limited, locally")
			}
			warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
			require.Len(t, warns, 1, "one warning for the outage")
			assert.Contains(t, warns[0].Message, "redis")

			how.back(t, r)
			require.Eventually(t, func() bool {
				apptest.Get(t, s, "/")
				return logs.FilterMessageSnippet("redis answers again").Len() == 1
			}, 10*time.Second, 10*time.Millisecond, "back to Redis when it answers")
			assert.Len(t, logs.FilterLevelExact(zapcore.WarnLevel).All(), 1)
		})
	}
}

func TestRedisKilledFailsOpenOrClosed(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	core, logs := observer.New(zapcore.InfoLevel)
	open := instance(t, redisstore.New(r.client(t), redisstore.Logger(zap.New(core))), 2, nil)
	closedCore, closedLogs := observer.New(zapcore.InfoLevel)
	closed := instance(t, redisstore.New(r.client(t), redisstore.FailClosed()), 2, zap.New(closedCore))
	require.Equal(t, http.StatusOK, apptest.Get(t, open, "/").StatusCode)
	require.Equal(t, http.StatusOK, apptest.Get(t, closed, "/").StatusCode)

	r.Kill(t)
	want := []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests}
	for i, w := range want {
		assert.Equal(t, w, apptest.Get(t, open, "/").StatusCode, "open, request %d: the local store's own budget", i+1)
	}
	for range 3 {
		res := apptest.Get(t, closed, "/")
		assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode, "closed")
		assert.Equal(t, "1", res.Header.Get("Retry-After"))
	}
	assert.Equal(t, 1, logs.FilterLevelExact(zapcore.WarnLevel).Len())
	closedWarns := closedLogs.FilterLevelExact(zapcore.WarnLevel).All()
	require.Len(t, closedWarns, 1, "one line per outage, by the limiter")
	assert.Contains(t, closedWarns[0].ContextMap()["error"], "redis unavailable")
}

func TestClientOptions(t *testing.T) {
	t.Parallel()
	o, err := redisstore.ClientOptions("redis://127.0.0.1:6390/2")
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6390", o.Addr)
	assert.Equal(t, 2, o.DB)
	assert.Equal(t, redisstore.DefaultTimeout, o.ReadTimeout)
	assert.True(t, o.ContextTimeoutEnabled)
	_, err = redisstore.ClientOptions("http://x")
	assert.ErrorContains(t, err, "redisstore:")
}

func TestAClientLeavingIsNoOutage(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	c := r.client(t)
	core, logs := observer.New(zapcore.InfoLevel)
	s := redisstore.New(c, redisstore.Logger(zap.New(core)))
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	d, err := s.Take(gone, "k", 1, time.Minute)
	require.NoError(t, err, "decided locally; nobody reads it")
	assert.True(t, d.Allowed)
	assert.Zero(t, logs.Len())
	d, err = s.Take(ctx, "k", 1, time.Minute)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "Redis never saw the first")
	assert.Equal(t, int64(1), c.Exists(ctx, "burrow:ratelimit:k").Val(), "and decides the next")
}

func TestRedisStoppedMidRun(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	core, logs := observer.New(zapcore.InfoLevel)
	store := redisstore.New(r.client(t), redisstore.Logger(zap.New(core)), redisstore.ProbeInterval(20*time.Millisecond))
	s := instance(t, store, 1_000_000, nil)

	// Workers call the server without pause while Redis stops and comes
	// back; every request must be answered, and quickly.
	stop := make(chan struct{})
	type result struct {
		status int
		took   time.Duration
	}
	results := make(chan result, 1<<16)
	var workers sync.WaitGroup
	for range 4 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/", nil))
				status := 0
				if err == nil {
					status = res.StatusCode
					res.Body.Close()
				}
				select {
				case results <- result{status, time.Since(start)}:
				default:
				}
			}
		}()
	}
	require.Eventually(t, func() bool { return len(results) > 20 }, 10*time.Second, time.Millisecond, "serving through Redis")
	r.signal(t, syscall.SIGSTOP)
	require.Eventually(t, func() bool { return logs.FilterLevelExact(zapcore.WarnLevel).Len() == 1 }, 10*time.Second, time.Millisecond, "the outage is noticed")
	before := len(results)
	require.Eventually(t, func() bool { return len(results) > before+20 }, 10*time.Second, time.Millisecond, "and served through")
	r.signal(t, syscall.SIGCONT)
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("redis answers again").Len() == 1 }, 10*time.Second, time.Millisecond)
	close(stop)
	workers.Wait()
	close(results)
	n := 0
	for res := range results {
		n++
		assert.Equal(t, http.StatusOK, res.status)
		assert.Less(t, res.took, 4*time.Second, "bounded by the client time-out")
	}
	assert.Greater(t, n, 40)
	assert.Equal(t, 1, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "one warning for the outage, with four clients")
}

func TestASlowClientIsReported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *redis.Options
		warn bool
	}{
		{"go-redis's defaults", &redis.Options{Addr: "127.0.0.1:1"}, true},
		{"no read time-out", &redis.Options{Addr: "127.0.0.1:1", DialTimeout: time.Second, ReadTimeout: -1, WriteTimeout: time.Second}, true},
		{"ClientOptions", func() *redis.Options { o, _ := redisstore.ClientOptions("redis://127.0.0.1:1/0"); return o }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.InfoLevel)
			c := redis.NewClient(tt.opts)
			defer c.Close()
			redisstore.New(c, redisstore.Logger(zap.New(core)))
			want := 0
			if tt.warn {
				want = 1
			}
			assert.Equal(t, want, logs.FilterMessageSnippet("time-outs are long").Len())
		})
	}
}
