//line /work/wt/caching/docs/authentication.md:4
package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// profile holds the claims of the tokens beyond the registered ones.
type profile struct {
	Email string `json:"email"`
}

func main() {
	secret := []byte("a secret of at least 32 bytes...")
	s := app.New()
	s.Register(func(s *app.Server) error {
		// Everything in this context needs a valid token.
		s.Register(jwt.Plugin[profile](jwt.Secret(secret)))
		s.Get("/me", func(c *jwt.Claims[profile]) (string, error) {
			return c.Subject + " <" + c.Custom.Email + ">", nil
		})
		return s.Delete("/todos", func() error { return nil }, jwt.Scopes("todos:write"))
	}, app.Name("api"))
	s.Get("/health", func() (string, error) { return "ok", nil }) // open

	claims := fmt.Sprintf(`{"sub":"ada","email":"ada@example.com","scope":"todos:read","exp":%d}`,
		time.Now().Add(time.Hour).Unix())
	token, err := jws.Sign([]byte(claims), jws.WithKey(jwa.HS256(), secret))
	if err != nil {
		panic(err)
	}
	for _, r := range []struct{ method, path, token string }{
		{"GET", "/me", string(token)},
		{"GET", "/me", ""},
		{"DELETE", "/todos", string(token)},
		{"GET", "/health", ""},
	} {
		req := httptest.NewRequest(r.method, r.path, nil)
		if r.token != "" {
			req.Header.Set("Authorization", "Bearer "+r.token)
		}
		res, err := s.Inject(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(res.Body)
		fmt.Println(r.method, r.path, res.StatusCode, res.Header.Get("WWW-Authenticate"), string(body))
	}
}
