package sessiontest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/session"
)

// account is the session data of the plugin-level checks.
type account struct{ Name string }

type sessionIn struct {
	app.In
	Session *session.Session[account]
}

// logOutIsFinal checks, over HTTP, that a request that loaded the
// session before another request ended it brings nothing back when it
// answers afterwards, whichever session method it called.
func logOutIsFinal(t *testing.T, newStore func(t *testing.T) session.Store) {
	for _, tc := range []struct {
		name string
		act  func(s *session.Session[account])
	}{
		{"Get", func(s *session.Session[account]) { s.Get() }},
		{"Set", func(s *session.Session[account]) { a, _ := s.Get(); s.Set(a) }},
		{"Regenerate", func(s *session.Session[account]) { s.Regenerate() }},
		{"RegenerateThenSet", func(s *session.Session[account]) { a, _ := s.Get(); s.Regenerate(); s.Set(a) }},
		{"SetThenRegenerate", func(s *session.Session[account]) { a, _ := s.Get(); s.Set(a); s.Regenerate() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded, release := make(chan struct{}), make(chan struct{})
			srv := logOutServer(t, newStore(t), func(s *session.Session[account]) {
				close(loaded)
				<-release
				tc.act(s)
			})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			t.Cleanup(free) // before the server's Close, which waits for the request
			_, cookies, err := call(srv, "POST", "/login", "")
			must(t, err)
			sid := sidIn(cookies)
			if sid == "" {
				t.Fatalf("log-in set no session cookie: %q", cookies)
			}
			type answer struct {
				cookies []string
				err     error
			}
			done := make(chan answer, 1)
			go func() {
				_, cookies, err := call(srv, "POST", "/slow", sid)
				done <- answer{cookies, err}
			}()
			var a answer
			select {
			case <-loaded:
			case a = <-done: // it never reached the handler
				t.Fatalf("the request in flight ended first: %v", a.err)
			}
			status, _, err := call(srv, "DELETE", "/session", sid)
			must(t, err)
			if status != http.StatusNoContent {
				t.Fatalf("log-out answered %d", status)
			}
			free()
			a = <-done
			must(t, a.err)
			if s := sidIn(a.cookies); s != "" {
				t.Errorf("a session ended meanwhile came back under a new cookie (%q)", a.cookies)
				if name := whoami(t, srv, s); name != "" {
					t.Errorf("the new cookie holds the ended session's data (%q)", name)
				}
			}
			if name := whoami(t, srv, sid); name != "" {
				t.Errorf("the cookie logged out still holds %q", name)
			}
		})
	}
}

// logOutServer serves /login, /me, DELETE /session and /slow, which
// calls slow with the request's session, over a real socket.
func logOutServer(t *testing.T, st session.Store, slow func(*session.Session[account])) *httptest.Server {
	s := app.New()
	err := s.Register(func(s *app.Server) error {
		if err := s.Register(session.Plugin[account](st, session.Cookie("sid"))); err != nil {
			return err
		}
		if err := app.Post(s, "/login", func(_ context.Context, in sessionIn) (app.NoContent, error) {
			in.Session.Regenerate()
			in.Session.Set(account{Name: "alice"})
			return app.NoContent{}, nil
		}); err != nil {
			return err
		}
		if err := app.Get(s, "/me", func(_ context.Context, in sessionIn) (string, error) {
			a, _ := in.Session.Get()
			return a.Name, nil
		}); err != nil {
			return err
		}
		if err := app.Post(s, "/slow", func(_ context.Context, in sessionIn) (app.NoContent, error) {
			slow(in.Session)
			return app.NoContent{}, nil
		}); err != nil {
			return err
		}
		return app.Delete(s, "/session", func(_ context.Context, in sessionIn) (app.NoContent, error) {
			in.Session.Destroy()
			return app.NoContent{}, nil
		})
	})
	must(t, err)
	must(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// call sends a request with the session cookie sid, if any, and returns
// the answer's status and Set-Cookie values.
func call(srv *httptest.Server, method, path, sid string) (int, []string, error) {
	status, cookies, _, err := callBody(srv, method, path, sid)
	return status, cookies, err
}

func callBody(srv *httptest.Server, method, path, sid string) (int, []string, string, error) {
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		return 0, nil, "", err
	}
	if sid != "" {
		req.Header.Set("Cookie", "sid="+sid)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Values("Set-Cookie"), string(b), err
}

// whoami is the name the session of cookie sid holds, "" without one.
func whoami(t *testing.T, srv *httptest.Server, sid string) string {
	t.Helper()
	status, _, body, err := callBody(srv, "GET", "/me", sid)
	must(t, err)
	if status != http.StatusOK {
		t.Fatalf("GET /me answered %d: %s", status, body)
	}
	return body
}

// sidIn is the value of the sid cookie the Set-Cookie values set, ""
// when they set none or clear it.
func sidIn(setCookies []string) string {
	for _, v := range setCookies {
		if c, err := http.ParseSetCookie(v); err == nil && c.Name == "sid" && c.MaxAge >= 0 {
			return c.Value
		}
	}
	return ""
}
