// Package redisstore keeps Burrow sessions in Redis, so that every
// instance of a service reads the sessions any of them wrote, and a
// log-out is final everywhere.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	s.Register(session.Plugin[account](redisstore.New(rdb)))
//
// A session is one Redis string under Prefix+token, written with its
// expiry (SET … PX), so Redis forgets it by itself: one round trip per
// load, save or delete. When Redis cannot be reached, loading fails and
// the request that needed the session is answered 500: a session store
// that is down is not a reason to treat a user as logged out, nor to
// let them in.
package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/plugins/session"
)

// DefaultPrefix is the key prefix of the sessions.
const DefaultPrefix = "burrow:session:"

// maxTokenLen bounds the tokens looked up: a token is 43 characters, so a
// longer one is not one this store gave.
const maxTokenLen = 64

// Store is a session.Store on a Redis client.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

// Option configures a Store.
type Option func(*Store)

// Prefix sets the key prefix (default DefaultPrefix).
func Prefix(p string) Option { return func(s *Store) { s.prefix = p } }

// New returns a Store on rdb: a *redis.Client, a cluster or a failover
// client. Set short time-outs on it (ReadTimeout, WriteTimeout, a
// DialTimeout of a second or less): they bound how long a request waits
// when Redis stalls.
func New(rdb redis.UniversalClient, opts ...Option) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Load implements session.Store.
func (s *Store) Load(ctx context.Context, token string) ([]byte, error) {
	if token == "" || len(token) > maxTokenLen {
		return nil, session.ErrNotFound
	}
	b, err := s.rdb.Get(ctx, s.prefix+token).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, session.ErrNotFound
	}
	return b, err
}

// Save implements session.Store.
func (s *Store) Save(ctx context.Context, token string, data []byte, ttl time.Duration) (string, error) {
	if token == "" {
		token = session.NewToken()
		if err := s.rdb.Set(ctx, s.prefix+token, data, ttl).Err(); err != nil {
			return "", err
		}
		return token, nil
	}
	if len(token) > maxTokenLen {
		return "", session.ErrNotFound
	}
	// XX: only while the session exists, so that a request that loaded
	// it before a log-out does not bring it back.
	err := s.rdb.SetArgs(ctx, s.prefix+token, data, redis.SetArgs{Mode: "XX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return "", session.ErrNotFound
	}
	if err != nil {
		return "", err
	}
	return token, nil
}

// Delete implements session.Store: DEL tells whether the key was there,
// in the same step as it removes it.
func (s *Store) Delete(ctx context.Context, token string) (bool, error) {
	if token == "" || len(token) > maxTokenLen {
		return false, nil
	}
	n, err := s.rdb.Del(ctx, s.prefix+token).Result()
	return n == 1, err
}
