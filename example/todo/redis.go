package main

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// redisTimeout bounds the first exchange with Redis at start-up.
const redisTimeout = 5 * time.Second

// openRedis connects to the Redis of url (redis://host:port/db) and
// checks that it answers: a service whose sessions cannot be kept should
// not start.
func openRedis(ctx context.Context, url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
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

// redisLog writes what the Redis client says (a connection refused, a
// pool that cannot dial) to the service's log, as JSON lines like the
// rest, rather than as plain text on stderr.
type redisLog struct{ l *zap.Logger }

func (r redisLog) Printf(_ context.Context, format string, args ...any) {
	r.l.Warn(fmt.Sprintf(format, args...))
}
