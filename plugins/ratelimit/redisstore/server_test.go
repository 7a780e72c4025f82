package redisstore_test

import (
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

// redisServer is a throwaway redis-server of one test
// (internal/redistest's).
type redisServer struct{ *redistest.Server }

// startRedis starts redis-server on a free port in a temporary
// directory and waits until it answers; it is killed when t ends.
func startRedis(t *testing.T) *redisServer { return &redisServer{redistest.Start(t)} }

// client is a client with the store's short time-outs.
func (r *redisServer) client(t *testing.T) *redis.Client {
	t.Helper()
	o, err := redisstore.ClientOptions("redis://" + r.Addr + "/0")
	require.NoError(t, err)
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// signal stops (SIGSTOP) or continues (SIGCONT) the server.
func (r *redisServer) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	switch sig {
	case syscall.SIGSTOP:
		r.Pause(t)
	case syscall.SIGCONT:
		r.Resume(t)
	default:
		t.Fatalf("no such signal here: %v", sig)
	}
}
