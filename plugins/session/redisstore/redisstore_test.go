package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/session"
	"github.com/burrow-go/burrow/plugins/session/redisstore"
	"github.com/burrow-go/burrow/plugins/session/sessiontest"
)

func client(t *testing.T, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{
		Addr: addr, DialTimeout: 500 * time.Millisecond,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond, MaxRetries: -1,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestConforms(t *testing.T) {
	srv := redistest.Start(t)
	sessiontest.Run(t, sessiontest.Caps{Revocable: true}, func(t *testing.T) session.Store {
		return redisstore.New(client(t, srv.Addr), redisstore.Prefix(t.Name()+":"))
	})
}

func TestSessionsAreKeptWithTheirExpiry(t *testing.T) {
	srv := redistest.Start(t)
	rdb := client(t, srv.Addr)
	st := redisstore.New(rdb)
	tok, err := st.Save(context.Background(), "", []byte("v"), time.Minute)
	require.NoError(t, err)
	ttl, err := rdb.PTTL(context.Background(), redisstore.DefaultPrefix+tok).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 50*time.Second)
	assert.LessOrEqual(t, ttl, time.Minute)
}

type account struct{ Name string }

type in struct {
	app.In
	Session *session.Session[account]
}

// Two instances on one Redis: a session made on one is read on the
// other, and a log-out on either is final on both.
func TestTwoInstancesShareSessions(t *testing.T) {
	srv := redistest.Start(t)
	instance := func() *httptest.Server {
		s := app.New()
		s.Register(session.Plugin[account](redisstore.New(client(t, srv.Addr)), session.Cookie("sid")))
		app.Post(s, "/login", func(_ context.Context, in in) (app.NoContent, error) {
			in.Session.Regenerate()
			in.Session.Set(account{Name: "alice"})
			return app.NoContent{}, nil
		})
		app.Get(s, "/me", func(_ context.Context, in in) (string, error) {
			a, _ := in.Session.Get()
			return a.Name, nil
		})
		app.Delete(s, "/session", func(_ context.Context, in in) (app.NoContent, error) {
			in.Session.Destroy()
			return app.NoContent{}, nil
		})
		require.NoError(t, s.Ready())
		h := httptest.NewServer(s)
		t.Cleanup(h.Close)
		return h
	}
	a, b := instance(), instance()
	do := func(h *httptest.Server, method, path string, c *http.Cookie) *http.Response {
		req, err := http.NewRequest(method, h.URL+path, nil)
		require.NoError(t, err)
		if c != nil {
			req.AddCookie(c)
		}
		res, err := h.Client().Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	res := do(a, "POST", "/login", nil)
	require.Equal(t, 204, res.StatusCode)
	sid := res.Cookies()[0]
	body := func(res *http.Response) string {
		var b [64]byte
		n, _ := res.Body.Read(b[:])
		return string(b[:n])
	}
	assert.Equal(t, "alice", body(do(b, "GET", "/me", sid)))
	require.Equal(t, 204, do(b, "DELETE", "/session", sid).StatusCode)
	assert.Equal(t, "", body(do(a, "GET", "/me", sid)), "logged out on b, logged out on a")
}

// A stalled or dead Redis makes a request that needs the session fail
// within the client's time-out, with a 500, not hang; it works again
// once Redis answers.
func TestRedisDownFailsFastAndRecovers(t *testing.T) {
	srv := redistest.Start(t)
	s := app.New()
	s.Register(session.Plugin[account](redisstore.New(client(t, srv.Addr)), session.Cookie("sid")))
	app.Get(s, "/me", func(_ context.Context, in in) (string, error) {
		a, _ := in.Session.Get()
		return a.Name, nil
	})
	require.NoError(t, s.Ready())
	h := httptest.NewServer(s)
	t.Cleanup(h.Close)
	get := func() int {
		req, _ := http.NewRequest("GET", h.URL+"/me", nil)
		req.AddCookie(&http.Cookie{Name: "sid", Value: session.NewToken()})
		cl := &http.Client{Timeout: 10 * time.Second} // a hang fails the test, not the run
		res, err := cl.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, 200, get())
	srv.Pause(t)
	assert.Equal(t, 500, get(), "stalled")
	srv.Resume(t)
	assert.Equal(t, 200, get())
	srv.Kill(t)
	assert.Equal(t, 500, get(), "dead")
	srv.Restart(t)
	assert.Eventually(t, func() bool { return get() == 200 }, 20*time.Second, 50*time.Millisecond)
}
