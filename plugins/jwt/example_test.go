package jwt_test

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

// The plugin guards its context; handlers there take the claims, routes
// name the scopes they need.
func Example() {
	secret := []byte("an example secret of 32 bytes...")
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[struct{}](jwt.Secret(secret)))
		s.Get("/todos", func(c *jwt.Claims[struct{}]) (string, error) { return "todos of " + c.Subject, nil })
		return s.Post("/todos", func() (string, error) { return "created", nil }, jwt.Scopes("todos:write"))
	}, app.Name("api"))

	// A token as the service would sign it.
	payload := fmt.Sprintf(`{"sub":"ada","scope":"todos:read","exp":%d}`, time.Now().Add(time.Hour).Unix())
	token, err := jws.Sign([]byte(payload), jws.WithKey(jwa.HS256(), secret))
	if err != nil {
		panic(err)
	}
	for _, r := range []struct{ method, auth string }{
		{"GET", ""}, {"GET", "Bearer " + string(token)}, {"POST", "Bearer " + string(token)}, {"GET", "Bearer x.y.z"},
	} {
		req := httptest.NewRequest(r.method, "/todos", nil)
		if r.auth != "" {
			req.Header.Set("Authorization", r.auth)
		}
		res, err := s.Inject(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(res.Body)
		fmt.Println(r.method, res.StatusCode, res.Header.Get("WWW-Authenticate"), string(body))
	}
	// Output:
	// GET 401 Bearer {"statusCode":401,"error":"Unauthorized","message":"Missing bearer token"}
	// GET 200  todos of ada
	// POST 403 Bearer error="insufficient_scope", scope="todos:write" {"statusCode":403,"code":"insufficient_scope","error":"Forbidden","message":"Insufficient scope"}
	// GET 401 Bearer error="invalid_token" {"statusCode":401,"code":"invalid_token","error":"Unauthorized","message":"Invalid token"}
}

// Keys from an issuer, found through its discovery document; tokens
// must name the service in their audience.
func ExampleDiscovery() {
	type profile struct {
		Email string `json:"email"`
	}
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(jwt.Plugin[profile](
			jwt.Discovery("https://id.example.com"),
			jwt.Audience("todos-api"),
		))
		return s.Get("/me", func(c *jwt.Claims[profile]) (string, error) { return c.Custom.Email, nil })
	})
}
