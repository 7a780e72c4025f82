package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/plugins/ratelimit"
	limitstore "github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

// redisTimeout bounds the first exchange with Redis at start-up.
const redisTimeout = 5 * time.Second

// openRedis connects to the Redis of url (redis://host:port/db) and
// checks that it answers: a service whose sessions cannot be kept should
// not start. The client, shared by the sessions and the rate limits, has
// short time-outs and no retries (limitstore.ClientOptions): once
// serving, a Redis that stops answering costs a request at most a
// quarter of a second, never the seconds of go-redis's defaults.
func openRedis(ctx context.Context, url string) (*redis.Client, error) {
	opts, err := limitstore.ClientOptions(url)
	if err != nil {
		return nil, fmt.Errorf("invalid -redis: %w", err)
	}
	rdb := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("connecting to Redis at %s: %w", opts.Addr, err)
	}
	return rdb, nil
}

// redisLimits keeps the rate limits in Redis, shared by every instance
// on it. While Redis is away each instance decides alone (the store
// fails open): a limit here protects capacity, not money. The outage is
// reported once, by the readiness check (redisCheck), not by the store
// too.
func redisLimits(client *redis.Client) ratelimit.Store {
	return limitstore.New(client, limitstore.Prefix("todo:ratelimit:"))
}

// redisCheck is the readiness check of client. An outage fails it with
// the error that began it until Redis answers again: the check's state,
// and so its one warning, does not change with each attempt's own error
// (a time-out names a fresh local port every time).
func redisCheck(client *redis.Client) func(context.Context) error {
	var (
		mu    sync.Mutex
		first error
	)
	return func(ctx context.Context) error {
		err := client.Ping(ctx).Err()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			first = nil
		case first == nil:
			first = err
		}
		return first
	}
}

// redisLog writes what the Redis client says (a connection refused, a
// pool that cannot dial) to the service's log, as JSON lines like the
// rest, rather than as plain text on stderr — at debug level: it says it
// on every failed dial, a line a second or more while Redis is away,
// and the readiness check (redisCheck) already reports an outage once,
// at warn.
type redisLog struct{ l *zap.Logger }

func (r redisLog) Printf(_ context.Context, format string, args ...any) {
	r.l.Debug(fmt.Sprintf(format, args...))
}
