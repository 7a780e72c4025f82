package redisstore_test

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/cache"
	"github.com/burrow-go/burrow/plugins/cache/redisstore"
)

func TestMain(m *testing.M) { apptest.Main(m) }

func client(t *testing.T) *redis.Client {
	t.Helper()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestSharedBetweenInstances: two servers on one Redis share an answer:
// the second instance serves what the first stored; Redis expires it.
func TestSharedBetweenInstances(t *testing.T) {
	t.Parallel()
	rdb := client(t)
	var calls atomic.Int64
	instance := func() string {
		s := apptest.New(t)
		require.NoError(t, s.Register(cache.Plugin(redisstore.New(rdb))))
		require.NoError(t, app.Get(s, "/prices", func(context.Context, struct{}) (map[string]int64, error) {
			return map[string]int64{"n": calls.Add(1)}, nil
		}, app.CacheControl("public, max-age=60")))
		return apptest.Serve(t, s)
	}
	a, b := instance(), instance()
	first, _ := get(t, a+"/prices")
	require.Equal(t, http.StatusOK, first.StatusCode)
	second, secondBody := get(t, b+"/prices")
	_, firstBody := get(t, a+"/prices")
	assert.Equal(t, firstBody, secondBody)
	assert.NotEmpty(t, second.Header.Get("Age"))
	assert.Equal(t, int64(1), calls.Load())

	keys, err := rdb.Keys(context.Background(), "burrow:cache:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	ttl, err := rdb.TTL(context.Background(), keys[0]).Result()
	require.NoError(t, err)
	assert.InDelta(t, 60, ttl.Seconds(), 5, "Redis expires the entry with the answer's max-age")
}

// get fetches url as the host api.example, the public name both
// instances serve behind a load balancer (the host is part of the key).
func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	req.Host = "api.example"
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// TestStore: Get of a missing key is nil without error; Set then Get
// returns the value.
func TestStore(t *testing.T) {
	t.Parallel()
	s := redisstore.New(client(t))
	ctx := context.Background()
	v, err := s.Get(ctx, "k")
	require.NoError(t, err)
	assert.Nil(t, v)
	require.NoError(t, s.Set(ctx, "k", []byte("v"), time.Minute))
	v, err = s.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
}

// TestRedisDown: with Redis gone, the handler answers every request.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	srv.Kill(t)
	var calls atomic.Int64
	s := apptest.New(t)
	require.NoError(t, s.Register(cache.Plugin(redisstore.New(rdb))))
	require.NoError(t, app.Get(s, "/p", func(context.Context, struct{}) (int64, error) { return calls.Add(1), nil },
		app.CacheControl("public, max-age=60")))
	url := apptest.Serve(t, s)
	for range 2 {
		assert.Equal(t, http.StatusOK, apptest.Fetch(t, "GET", url+"/p").StatusCode)
	}
	assert.Equal(t, int64(2), calls.Load())
}
