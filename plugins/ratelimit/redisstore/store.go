// Package redisstore is a ratelimit.Store on Redis: every instance of a
// service that uses the same Redis (and prefix) shares one budget per
// key. Each decision is one round trip, one Lua script run atomically on
// Redis's clock.
//
// Redis slow or down is a stated policy, not an accident. By default the
// store fails open: a decision Redis does not answer within the client's
// time-out is taken by a local memory store instead (each instance then
// enforces the limits alone), one warning naming redis is logged per
// outage, and Redis is asked again, by one request at a time, once per
// probe interval until it answers. FailClosed makes the limiter answer
// 503 instead while Redis is away.
//
// The client must have short time-outs, or an unanswering Redis holds
// every request for its defaults (seconds): build its options with
// ClientOptions.
package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/plugins/ratelimit"
)

//go:embed gcra.lua
var gcraSource string

var gcra = redis.NewScript(gcraSource)

// DefaultTimeout is the time-out ClientOptions sets for dialling,
// reading, writing and waiting for a pooled connection.
const DefaultTimeout = 250 * time.Millisecond

// DefaultProbeInterval is how often a store that lost Redis asks again.
const DefaultProbeInterval = time.Second

// ErrUnavailable is wrapped by the error of a decision Redis did not
// take, with FailClosed.
var ErrUnavailable = errors.New("redis unavailable")

// Store is a ratelimit.Store on Redis.
type Store struct {
	client   redis.Scripter
	prefix   string
	closed   bool
	fallback ratelimit.Store
	probe    time.Duration
	log      *zap.Logger

	down    atomic.Bool
	nextTry atomic.Int64 // unix ns: when a request may ask Redis again
}

// Option configures New.
type Option func(*Store)

// Prefix puts the store's keys under prefix ("burrow:ratelimit:" by
// default); services sharing a Redis but not their limits take two.
func Prefix(prefix string) Option { return func(s *Store) { s.prefix = prefix } }

// FailClosed refuses to decide while Redis is away: the limiter answers
// 503 with Retry-After. The default fails open to a local memory store.
func FailClosed() Option { return func(s *Store) { s.closed = true } }

// Fallback replaces the local store used while Redis is away (a bounded
// ratelimit.NewMemory by default).
func Fallback(st ratelimit.Store) Option { return func(s *Store) { s.fallback = st } }

// ProbeInterval sets how often, while Redis is away, one request asks it
// again (DefaultProbeInterval).
func ProbeInterval(d time.Duration) Option { return func(s *Store) { s.probe = d } }

// Logger sets where outages are reported (nowhere by default).
func Logger(l *zap.Logger) Option { return func(s *Store) { s.log = l } }

// New returns a store deciding on client (a *redis.Client, a cluster or
// ring client).
func New(client redis.Scripter, opts ...Option) *Store {
	s := &Store{client: client, prefix: "burrow:ratelimit:", probe: DefaultProbeInterval, log: zap.NewNop()}
	for _, o := range opts {
		o(s)
	}
	if s.fallback == nil {
		s.fallback = ratelimit.NewMemory()
	}
	if c, ok := client.(*redis.Client); ok && slowClient(c.Options()) {
		s.log.Warn("redis client time-outs are long or off: while Redis is stopped every rate-limited request waits for them; build the client with redisstore.ClientOptions")
	}
	return s
}

// slowClient reports whether o lets a request wait more than a second
// on one try for a Redis that does not answer: a time-out left at its
// default (0: 5 s to dial, 3 s to read and write), off (negative) or
// long.
func slowClient(o *redis.Options) bool {
	long := func(d time.Duration) bool { return d <= 0 || d > time.Second }
	return long(o.DialTimeout) || long(o.ReadTimeout) || long(o.WriteTimeout)
}

// ClientOptions parses a redis:// URL (redis://host:port/db) into client
// options with DefaultTimeout for dialling, reads, writes and the pool,
// no retries (a retry doubles the wait on a Redis that is away) and the
// request's context deadline respected.
func ClientOptions(url string) (*redis.Options, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = DefaultTimeout, DefaultTimeout, DefaultTimeout, DefaultTimeout
	o.MaxRetries = -1
	o.ContextTimeoutEnabled = true
	return o, nil
}

// Take implements ratelimit.Store.
func (s *Store) Take(ctx context.Context, key string, limit int, window time.Duration) (ratelimit.Decision, error) {
	if s.down.Load() && !s.mayProbe() {
		return s.away(ctx, key, limit, window, nil)
	}
	d, err := s.take(ctx, key, limit, window)
	if err != nil {
		if ctx.Err() != nil && !s.down.Load() {
			// The client left (or its deadline passed): no outage, and no
			// one reads the answer.
			return s.fallback.Take(ctx, key, limit, window)
		}
		return s.away(ctx, key, limit, window, err)
	}
	if s.down.CompareAndSwap(true, false) {
		s.log.Info("redis answers again: rate limits are shared again")
	}
	return d, nil
}

// mayProbe reports whether this request asks Redis, while it is away:
// one request a probe interval.
func (s *Store) mayProbe() bool {
	now := time.Now().UnixNano()
	next := s.nextTry.Load()
	return now >= next && s.nextTry.CompareAndSwap(next, now+int64(s.probe))
}

// away decides without Redis: locally, or not at all with FailClosed.
func (s *Store) away(ctx context.Context, key string, limit int, window time.Duration, cause error) (ratelimit.Decision, error) {
	if cause != nil && s.down.CompareAndSwap(false, true) {
		s.nextTry.Store(time.Now().Add(s.probe).UnixNano())
		if !s.closed { // closed, the limiter logs the error this returns, which names redis
			s.log.Warn("redis unavailable: rate limits are local to this instance until it answers", zap.Error(cause))
		}
	}
	if s.closed {
		if cause == nil {
			cause = errors.New("still away")
		}
		return ratelimit.Decision{}, fmt.Errorf("redisstore: %w: %w", ErrUnavailable, cause)
	}
	return s.fallback.Take(ctx, key, limit, window)
}

// take runs the script: one round trip (EVALSHA; EVAL once more the
// first time a Redis sees it).
func (s *Store) take(ctx context.Context, key string, limit int, window time.Duration) (ratelimit.Decision, error) {
	res, err := gcra.Run(ctx, s.client, []string{s.prefix + key}, limit, strconv.FormatInt(window.Microseconds(), 10)).Int64Slice()
	if err != nil {
		return ratelimit.Decision{}, err
	}
	if len(res) != 5 {
		return ratelimit.Decision{}, fmt.Errorf("redisstore: the script answered %d values, not 5", len(res))
	}
	return ratelimit.Decision{
		Allowed:    res[0] == 1,
		Remaining:  int(res[1]),
		Reset:      time.Duration(res[2]) * time.Microsecond,
		RetryAfter: time.Duration(res[3]) * time.Microsecond,
		Denied:     int(res[4]),
	}, nil
}
