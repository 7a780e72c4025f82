package session_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

// Log in, read the session back with its cookie, log out.
func Example() {
	type account struct{ Name string }
	type in struct {
		app.In
		Session *session.Session[account]
	}
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[account](session.NewMemoryStore(), session.Cookie("sid")))
		app.Post(s, "/login", func(_ context.Context, in in) (app.NoContent, error) {
			in.Session.Regenerate() // a new id at log-in: no fixation
			in.Session.Set(account{Name: "alice"})
			return app.NoContent{}, nil
		})
		app.Get(s, "/me", func(_ context.Context, in in) (string, error) {
			a, ok := in.Session.Get()
			if !ok {
				return "", httpx.NewError(401, "", "log in first")
			}
			return "hello " + a.Name, nil
		})
		return nil
	})

	res, _ := s.Inject(httptest.NewRequest("POST", "/login", nil))
	sid := res.Cookies()[0]
	req := httptest.NewRequest("GET", "/me", nil)
	req.AddCookie(sid)
	res, _ = s.Inject(req)
	var body [64]byte
	n, _ := res.Body.Read(body[:])
	fmt.Println(res.StatusCode, string(body[:n]))
	// Output: 200 hello alice
}
