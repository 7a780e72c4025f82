// Package redisstore keeps Idempotency-Key records in Redis, for
// handlers that write nothing to a database transaction (an email sent,
// a call to another service).
//
// The guarantee is weaker than the SQL store's: the record is written
// next to the handler's effects, not with them. A repeat while the first
// request runs is answered 409 on every instance sharing the Redis, and
// a failed request gives its key up, so a retry runs again; but a crash
// between the handler's effects and the record of its answer leaves the
// effects without a record (a retry runs them again), and a request that
// runs longer than the key's TTL can be run a second time.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/plugins/idempotency"
)

// DefaultPrefix starts the Redis key of every record.
const DefaultPrefix = "idempotency:"

// Option configures the store.
type Option func(*store)

// Prefix sets what starts the Redis key of every record (DefaultPrefix).
func Prefix(p string) Option { return func(s *store) { s.prefix = p } }

type store struct {
	client redis.UniversalClient
	prefix string
}

// New returns a store that keeps its records in client, each a hash
// that expires with its key.
func New(client redis.UniversalClient, opts ...Option) idempotency.Store {
	s := &store{client: client, prefix: DefaultPrefix}
	for _, o := range opts {
		o(s)
	}
	return idempotency.NewStore(func(context.Context, struct{}) (idempotency.Records, error) {
		if s.client == nil {
			return nil, errors.New("the Redis idempotency store has no client")
		}
		return &records{store: s}, nil
	})
}

// records is one request's: token is its claim's, so that it completes
// or releases only its own claim, not one made after its key expired.
type records struct {
	*store
	token string
}

var claim = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	redis.call('HSET', KEYS[1], 'token', ARGV[1], 'fp', ARGV[2])
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	return false
end
return redis.call('HMGET', KEYS[1], 'fp', 'status', 'header', 'body')`)

var complete = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
	return 0
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'header', ARGV[3], 'body', ARGV[4])
return 1`)

var release = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
	redis.call('DEL', KEYS[1])
end
return 0`)

func (r *records) Claim(ctx context.Context, key, fingerprint string, ttl time.Duration) (*idempotency.Record, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails
	r.token = hex.EncodeToString(b)
	v, err := claim.Run(ctx, r.client, []string{r.prefix + key}, r.token, fingerprint, ttl.Milliseconds()).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil // claimed
	}
	if err != nil {
		return nil, err
	}
	if len(v) != 4 {
		return nil, fmt.Errorf("the record of an Idempotency-Key has %d fields, not 4", len(v))
	}
	rec := &idempotency.Record{}
	rec.Fingerprint, _ = v[0].(string)
	status, ok := v[1].(string)
	if !ok {
		return rec, nil // in flight
	}
	rec.Done = true
	if rec.Status, err = strconv.Atoi(status); err != nil {
		return nil, fmt.Errorf("the record of an Idempotency-Key has the status %q", status)
	}
	if h, _ := v[2].(string); h != "" {
		if err := json.Unmarshal([]byte(h), &rec.Header); err != nil {
			return nil, fmt.Errorf("reading the record's headers: %w", err)
		}
	}
	body, _ := v[3].(string)
	rec.Body = []byte(body)
	return rec, nil
}

func (r *records) Complete(ctx context.Context, key string, rec *idempotency.Record) error {
	header := ""
	if len(rec.Header) > 0 {
		b, err := json.Marshal(rec.Header)
		if err != nil {
			return err
		}
		header = string(b)
	}
	n, err := complete.Run(ctx, r.client, []string{r.prefix + key}, r.token, rec.Status, header, rec.Body).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("the Idempotency-Key expired before its answer was recorded")
	}
	return nil
}

func (r *records) Release(ctx context.Context, key string) error {
	return release.Run(ctx, r.client, []string{r.prefix + key}, r.token).Err()
}
