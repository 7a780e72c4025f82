package redisstore_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

// redisServer is a throwaway redis-server of one test.
type redisServer struct {
	cmd  *exec.Cmd
	addr string
}

// startRedis starts redis-server on a free port in a temporary
// directory and waits until it answers; it is killed when t ends.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if _, e := os.Stat("/usr/bin/redis-server"); e == nil {
			bin = "/usr/bin/redis-server"
		} else if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found; CI must install it: apt-get install -y redis-server")
		} else {
			t.Skip("redis-server not found: apt-get install -y redis-server")
		}
	}
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		srv := &redisServer{cmd: cmd, addr: "127.0.0.1:" + strconv.Itoa(port)}
		if srv.waitUp(t, done) {
			t.Cleanup(func() {
				_ = cmd.Process.Signal(syscall.SIGCONT)
				_ = cmd.Process.Kill()
				<-done
			})
			return srv
		}
		if attempt == 3 {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server did not start:\n%s", log)
		}
	}
}

// waitUp waits until the server answers PING, or exits (its port was
// taken meanwhile).
func (r *redisServer) waitUp(t *testing.T, done <-chan error) bool {
	c := redis.NewClient(&redis.Options{Addr: r.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return true
		}
		time.Sleep(10 * time.Millisecond) // polling a condition: the server's start
	}
	t.Fatal("redis-server did not answer within 30 s")
	return false
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// client is a client with the store's short time-outs.
func (r *redisServer) client(t *testing.T) *redis.Client {
	t.Helper()
	o, err := redisstore.ClientOptions("redis://" + r.addr + "/0")
	require.NoError(t, err)
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (r *redisServer) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, r.cmd.Process.Signal(sig))
}
