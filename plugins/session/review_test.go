package session_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

// A request that loaded the session before a log-out does not bring it
// back when it saves afterwards: with a change, or with a renewal.
func TestALogOutIsNotUndoneByARequestInFlight(t *testing.T) {
	t.Parallel()
	for _, write := range []bool{true, false} {
		t.Run(map[bool]string{true: "a change", false: "a renewal"}[write], func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			store := session.NewMemoryStore()
			store.SetClock(clk.now)
			loaded, release := make(chan struct{}), make(chan struct{})
			s := app.New()
			s.Register(func(s *app.Server) error {
				s.Register(session.Plugin[user](store, session.Cookie("sid"), session.Clock(clk.now), session.IdleTimeout(30*time.Minute)))
				app.Post(s, "/login", func(_ context.Context, in loginIn) (app.NoContent, error) {
					in.Session.Regenerate()
					in.Session.Set(user{Name: in.Name})
					return app.NoContent{}, nil
				})
				app.Get(s, "/me", func(_ context.Context, in sessIn) (user, error) { u, _ := in.Session.Get(); return u, nil })
				app.Post(s, "/slow", func(_ context.Context, in sessIn) (user, error) {
					u, _ := in.Session.Get()
					close(loaded)
					<-release
					if write {
						in.Session.Set(u)
					}
					return u, nil
				})
				app.Delete(s, "/session", func(_ context.Context, in sessIn) (app.NoContent, error) {
					in.Session.Destroy()
					return app.NoContent{}, nil
				})
				return nil
			})
			require.NoError(t, s.Ready())
			srv := httptest.NewServer(s)
			defer srv.Close()
			sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
			clk.add(16 * time.Minute) // past half the idle time: the slow request renews
			done := make(chan answer, 1)
			go func() { done <- call(t, srv, "POST", "/slow", sid) }()
			<-loaded
			require.Equal(t, 204, call(t, srv, "DELETE", "/session", sid).status)
			close(release)
			a := <-done
			assert.Equal(t, 200, a.status)
			assert.Empty(t, a.cookies, "no cookie for a session that ended meanwhile")
			assert.NotContains(t, call(t, srv, "GET", "/me", sid).body, "alice")
			assert.Equal(t, 0, store.Len())
		})
	}
}

type customer struct{ ID int64 }
type staff struct{ ID int64 }

// Two registrations sharing a key (or a store) do not accept each other's
// sessions: a session belongs to the cookie it was made for.
func TestASessionBelongsToItsCookie(t *testing.T) {
	t.Parallel()
	key := []byte("0123456789abcdef0123456789abcdef")
	shared := session.NewMemoryStore()
	newCookieStore := func() session.Store {
		st, err := session.NewCookieStore(key)
		require.NoError(t, err)
		return st
	}
	for name, stores := range map[string][2]session.Store{
		"cookie stores, one key": {newCookieStore(), newCookieStore()},
		"one memory store":       {shared, shared},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			type cin struct {
				app.In
				S *session.Session[customer]
			}
			type sin struct {
				app.In
				S *session.Session[staff]
			}
			s := app.New()
			s.Register(func(s *app.Server) error {
				s.Register(session.Plugin[customer](stores[0], session.Cookie("cust")))
				return app.Post(s, "/login", func(_ context.Context, in cin) (app.NoContent, error) {
					in.S.Regenerate()
					in.S.Set(customer{ID: 1})
					return app.NoContent{}, nil
				})
			}, app.Prefix("/shop"))
			s.Register(func(s *app.Server) error {
				s.Register(session.Plugin[staff](stores[1], session.Cookie("staff")))
				return app.Get(s, "/whoami", func(_ context.Context, in sin) (staff, error) { u, _ := in.S.Get(); return u, nil })
			}, app.Prefix("/admin"))
			require.NoError(t, s.Ready())
			srv := httptest.NewServer(s)
			defer srv.Close()
			res, err := srv.Client().Post(srv.URL+"/shop/login", "", nil)
			require.NoError(t, err)
			res.Body.Close()
			c, err := http.ParseSetCookie(res.Header.Get("Set-Cookie"))
			require.NoError(t, err)
			req, _ := http.NewRequest("GET", srv.URL+"/admin/whoami", nil)
			req.Header.Set("Cookie", "staff="+c.Value)
			res, err = srv.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			assert.Equal(t, `{"ID":0}`, string(b))
		})
	}
}

// Regenerate without a session starts none.
func TestRegenerateWithoutASessionStartsNone(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[user](store, session.Cookie("sid")))
		return app.Get(s, "/probe", func(_ context.Context, in sessIn) (bool, error) {
			in.Session.Regenerate()
			_, ok := in.Session.Get()
			return ok, nil
		})
	})
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	defer srv.Close()
	a := call(t, srv, "GET", "/probe", "")
	assert.Equal(t, "false", a.body)
	assert.Empty(t, a.cookies)
	assert.Equal(t, 0, store.Len())
}

// An answer that sets the session cookie is never stored by a shared
// cache.
func TestAnAnswerSettingTheCookieIsNotCached(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[user](session.NewMemoryStore(), session.Cookie("sid")))
		return app.Post(s, "/login", func(_ context.Context, in loginIn) (string, error) {
			in.Session.Set(user{Name: "a"})
			return "ok", nil
		}, app.WithHook(app.OnRequest, func(rep *httpx.Reply) { rep.SetHeader("Cache-Control", "public, max-age=60") }))
	})
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	defer srv.Close()
	res, err := srv.Client().Post(srv.URL+"/login", "", nil)
	require.NoError(t, err)
	res.Body.Close()
	require.NotEmpty(t, res.Header.Get("Set-Cookie"))
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
}

// Destroy then Set in one request starts a new session under a new
// token: the old one is forgotten.
func TestDestroyThenSetStartsANewSession(t *testing.T) {
	t.Parallel()
	srv := serve(t, session.NewMemoryStore())
	sid := sidOf(t, call(t, srv, "POST", "/login?name=alice", ""))
	fresh := sidOf(t, call(t, srv, "POST", "/switch?name=bob", sid))
	assert.NotEqual(t, sid, fresh)
	assert.JSONEq(t, `{"name":"bob"}`, call(t, srv, "GET", "/me", fresh).body)
	assert.Equal(t, 401, call(t, srv, "GET", "/me", sid).status)
}

// A memory store's Delete does not report a session that expired.
func TestMemoryStoreDeleteOfAnExpiredSession(t *testing.T) {
	t.Parallel()
	clk := newClock()
	store := session.NewMemoryStore()
	store.SetClock(clk.now)
	tok, err := store.Save(t.Context(), "", []byte("x"), time.Minute)
	require.NoError(t, err)
	clk.add(time.Minute)
	lived, err := store.Delete(t.Context(), tok)
	require.NoError(t, err)
	assert.False(t, lived)
	assert.Equal(t, 0, store.Len())
}
