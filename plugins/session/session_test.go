package session_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

type user struct {
	Name string `json:"name"`
}

type sessIn struct {
	app.In
	Session *session.Session[user]
}

type loginIn struct {
	app.In
	Session *session.Session[user]
	Name    string `query:"name"`
}

// clock is a settable time for the plugin and the store.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }
func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

// serve starts a server with the plugin in one context and a sibling
// without it, over a real socket.
func serve(t *testing.T, store session.Store, opts ...session.Option) *httptest.Server {
	t.Helper()
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[user](store, append([]session.Option{session.Cookie("sid")}, opts...)...))
		app.Post(s, "/login", func(_ context.Context, in loginIn) (app.NoContent, error) {
			in.Session.Regenerate()
			in.Session.Set(user{Name: in.Name})
			return app.NoContent{}, nil
		})
		app.Get(s, "/me", func(_ context.Context, in sessIn) (user, error) {
			u, ok := in.Session.Get()
			if !ok {
				return user{}, httpx.NewError(http.StatusUnauthorized, "", "log in first")
			}
			return u, nil
		})
		app.Get(s, "/anonymous", func(_ context.Context, in sessIn) (user, error) {
			u, _ := in.Session.Get()
			return u, nil
		})
		app.Post(s, "/rename", func(_ context.Context, in loginIn) (user, error) {
			u, _ := in.Session.Get()
			u.Name = in.Name
			in.Session.Set(u)
			return u, nil
		})
		app.Post(s, "/fail", func(_ context.Context, in loginIn) (user, error) {
			in.Session.Set(user{Name: in.Name})
			return user{}, errors.New("boom")
		})
		app.Delete(s, "/session", func(_ context.Context, in sessIn) (app.NoContent, error) {
			in.Session.Destroy()
			return app.NoContent{}, nil
		})
		app.Post(s, "/switch", func(_ context.Context, in loginIn) (app.NoContent, error) {
			in.Session.Destroy()
			in.Session.Set(user{Name: in.Name})
			return app.NoContent{}, nil
		})
		return nil
	})
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	status  int
	body    string
	cookies []string
}

func call(t *testing.T, srv *httptest.Server, method, path, sid string) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	require.NoError(t, err)
	if sid != "" {
		req.Header.Set("Cookie", "sid="+sid)
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{res.StatusCode, string(b), res.Header.Values("Set-Cookie")}
}

// sidOf returns the value of the sid cookie an answer sets.
func sidOf(t *testing.T, a answer) string {
	t.Helper()
	require.Len(t, a.cookies, 1, "one Set-Cookie")
	c, err := http.ParseSetCookie(a.cookies[0])
	require.NoError(t, err)
	require.Equal(t, "sid", c.Name)
	return c.Value
}

func stores(t *testing.T, clk *clock) map[string]session.Store {
	mem := session.NewMemoryStore()
	mem.SetClock(clk.now)
	ck, err := session.NewCookieStore([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	ck.SetClock(clk.now)
	return map[string]session.Store{"memory": mem, "cookie": ck}
}

func TestLoginReadLogout(t *testing.T) {
	t.Parallel()
	for name, store := range stores(t, newClock()) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, store)
			a := call(t, srv, "GET", "/me", "")
			assert.Equal(t, 401, a.status)
			assert.Empty(t, a.cookies, "reading no session writes no cookie")

			a = call(t, srv, "POST", "/login?name=alice", "")
			require.Equal(t, 204, a.status)
			assert.Regexp(t, `^sid=[A-Za-z0-9_-]+; Path=/; HttpOnly; Secure; SameSite=Lax$`, a.cookies[0])
			sid := sidOf(t, a)
			assert.NotContains(t, sid, "alice")

			a = call(t, srv, "GET", "/me", sid)
			assert.Equal(t, 200, a.status)
			assert.JSONEq(t, `{"name":"alice"}`, a.body)
			assert.Empty(t, a.cookies, "an unchanged session is not saved again")

			b := []byte(sid)
			b[len(b)/2] ^= 1
			assert.Equal(t, 401, call(t, srv, "GET", "/me", string(b)).status, "a changed byte is no session")

			a = call(t, srv, "DELETE", "/session", sid)
			require.Equal(t, 204, a.status)
			require.Len(t, a.cookies, 1)
			assert.Equal(t, "sid=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax", a.cookies[0])
		})
	}
}

func TestDestroyedSessionIsRefusedAfterwards(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
	require.Equal(t, 204, call(t, srv, "DELETE", "/session", sid).status)
	assert.Equal(t, 401, call(t, srv, "GET", "/me", sid).status, "a copy of the old cookie is refused")
}

func TestLoginRegeneratesTheID(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	// An attacker's own session, planted in the victim's browser.
	planted := sidOf(t, call(t, srv, "POST", "/login?name=mallory", ""))
	a := call(t, srv, "POST", "/login?name=alice", planted)
	fresh := sidOf(t, a)
	assert.NotEqual(t, planted, fresh)
	assert.Equal(t, 401, call(t, srv, "GET", "/me", planted).status, "the planted id no longer works")
	assert.JSONEq(t, `{"name":"alice"}`, call(t, srv, "GET", "/me", fresh).body)
}

func TestAFailedRequestChangesNothing(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	a := call(t, srv, "POST", "/fail?name=eve", "")
	assert.Equal(t, 500, a.status)
	assert.Empty(t, a.cookies)

	sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
	assert.Empty(t, call(t, srv, "POST", "/fail?name=eve", sid).cookies)
	assert.JSONEq(t, `{"name":"alice"}`, call(t, srv, "GET", "/me", sid).body)
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	for name, newStore := range map[string]func(*clock) session.Store{
		"memory": func(c *clock) session.Store { return stores(t, c)["memory"] },
		"cookie": func(c *clock) session.Store { return stores(t, c)["cookie"] },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("idle", func(t *testing.T) {
				clk := newClock()
				srv := serve(t, newStore(clk), session.Clock(clk.now), session.IdleTimeout(10*time.Minute))
				sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
				clk.add(9 * time.Minute)
				assert.Equal(t, 200, call(t, srv, "GET", "/me", sid).status)
				clk.add(11 * time.Minute)
				assert.Equal(t, 401, call(t, srv, "GET", "/me", sid).status)
			})
			t.Run("rolling", func(t *testing.T) {
				clk := newClock()
				srv := serve(t, newStore(clk), session.Clock(clk.now), session.IdleTimeout(10*time.Minute))
				sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
				for range 6 { // 36 minutes of use, each request within the idle time-out
					clk.add(6 * time.Minute)
					a := call(t, srv, "GET", "/me", sid)
					require.Equal(t, 200, a.status)
					if len(a.cookies) > 0 {
						sid = sidOf(t, a) // a cookie store writes a new value on renewal
					}
				}
			})
			t.Run("absolute", func(t *testing.T) {
				clk := newClock()
				srv := serve(t, newStore(clk), session.Clock(clk.now),
					session.IdleTimeout(10*time.Minute), session.AbsoluteTimeout(30*time.Minute))
				sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
				status := 200
				for i := 0; i < 10 && status == 200; i++ {
					clk.add(5 * time.Minute)
					a := call(t, srv, "GET", "/me", sid)
					status = a.status
					if len(a.cookies) > 0 {
						sid = sidOf(t, a)
					}
				}
				assert.Equal(t, 401, status, "in use every 5 minutes, the session still ends after 30")
				assert.Equal(t, 5*time.Minute*6, clk.now().Sub(newClock().now()))
			})
		})
	}
}

func TestConcurrentRequestsOfOneSession(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/me"
			if i%2 == 0 {
				path = "/rename?name=bob"
			}
			req, _ := http.NewRequest(map[bool]string{true: "POST", false: "GET"}[i%2 == 0], srv.URL+path, nil)
			req.Header.Set("Cookie", "sid="+sid)
			res, err := srv.Client().Do(req)
			if assert.NoError(t, err) {
				assert.Equal(t, 200, res.StatusCode)
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
	a := call(t, srv, "GET", "/me", sid)
	assert.Contains(t, []string{`{"name":"alice"}`, `{"name":"bob"}`}, strings.TrimSpace(a.body))
}

func TestASiblingCannotSeeTheSession(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(s *app.Server) error {
		return s.Register(session.Plugin[user](session.NewMemoryStore()))
	})
	s.Register(func(s *app.Server) error {
		return app.Get(s, "/me", func(_ context.Context, in sessIn) (user, error) { return user{}, nil })
	})
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "session.Session")
}

func TestOversizedCookieIsNotLookedUp(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	assert.Equal(t, 401, call(t, srv, "GET", "/me", strings.Repeat("a", 5000)).status)
}

func TestInvalidOptionsFailRegister(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*app.Plugin{
		"nil store":       session.Plugin[user](nil),
		"bad cookie name": session.Plugin[user](session.NewMemoryStore(), session.Cookie("a b")),
		"zero idle":       session.Plugin[user](session.NewMemoryStore(), session.IdleTimeout(0)),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := app.New().Register(p)
			var pe *app.PluginError
			assert.ErrorAs(t, err, &pe)
		})
	}
}
