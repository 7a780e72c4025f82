package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

// openRedis returns a client of the Redis at url (redis://host:port/db)
// with short time-outs and no retries: a Redis that stops answering
// costs a request at most a quarter of a second, never the seconds of
// go-redis's defaults. It does not connect: a Redis that is down at
// start-up fails readiness, not the start.
func openRedis(url string) (*redis.Client, error) {
	opts, err := redisstore.ClientOptions(url)
	if err != nil {
		return nil, fmt.Errorf("invalid -redis %q: %w", url, err)
	}
	return redis.NewClient(opts), nil
}

// redisLimits keeps the rate limits in Redis, shared by every instance
// on it. While Redis is away, each instance decides alone (fails open):
// a limit here protects capacity, not money. The outage is reported once,
// by the readiness check (redisCheck), not by the store too.
func redisLimits(client *redis.Client) ratelimit.Store {
	return redisstore.New(client, redisstore.Prefix("todo:ratelimit:"))
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
