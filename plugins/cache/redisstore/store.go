// Package redisstore is a cache.Store on Redis, so that every instance
// of a service shares the answers plugins/cache keeps: one GET per
// lookup (two for an answer that varies by request headers), one SET
// with its time to live per stored answer. Entries are strings under
// their key, prefixed ("burrow:cache:…"), which Redis expires itself.
//
// The cache plugin bounds each call (cache.StoreTimeout) and answers
// with the handler when Redis fails; give the client short time-outs of
// its own too. Bound Redis's memory with maxmemory and an LRU policy
// (allkeys-lru): entries are only ever a cache.
package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/plugins/cache"
)

// Store keeps cache entries in Redis.
type Store struct {
	rdb redis.UniversalClient
}

// New returns a Store on rdb, a client of a Redis server, cluster or
// sentinel.
func New(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb} }

var _ cache.Store = (*Store)(nil)

// Get returns the value of key, or nil when Redis holds none.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.rdb.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

// Set stores value under key for ttl (at least a millisecond).
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, key, value, max(ttl, time.Millisecond)).Err()
}
