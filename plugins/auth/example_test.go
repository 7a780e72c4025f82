package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
	"github.com/burrow-go/burrow/plugins/session"
)

// A context that takes an API key or a session cookie: the first
// credential the request carries decides, and a wrong key is refused
// even beside a cookie.
func ExampleAnyOf() {
	store := session.NewMemoryStore()
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[string](store))
		s.Register(auth.AnyOf(
			bearer.Method(func(bearer.Identity) (string, error) { return "robot", nil }, bearer.Keys("k3y")),
			session.Method(store, func(name string, live bool) (string, error) {
				if !live {
					return "", httpx.NewError(http.StatusUnauthorized, "", "log in")
				}
				return name, nil
			}),
		))
		type in struct {
			app.In
			User string
		}
		return app.Get(s, "/me", func(_ context.Context, in in) (string, error) { return "hello " + in.User, nil })
	})

	for _, header := range [][]string{
		{"Authorization", "Bearer k3y"},
		{"Authorization", "Bearer wrong"},
		{"Cookie", "session=unknown"},
		nil,
	} {
		req := httptest.NewRequest("GET", "/me", nil)
		if header != nil {
			req.Header.Set(header[0], header[1])
		}
		res, err := s.Inject(req)
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(fmt.Sprint(res.StatusCode, " ", res.Header.Get("Www-Authenticate"))))
	}
	// Output:
	// 200
	// 401 Bearer error="invalid_token"
	// 401 Bearer
	// 401 Bearer
}
