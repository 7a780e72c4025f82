package b004
import (
	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/jwt"
)
func _() {
//line /work/wt/caching/docs/authentication.md:87
checks := health.New()
s := app.New()
s.Register(func(s *app.Server) error {
	s.Register(jwt.Plugin[struct{}](
		jwt.Discovery("https://id.example.com"), // its /.well-known/openid-configuration names the JWK set
		jwt.Audience("todos-api"),               // tokens the provider made for other services are refused
		jwt.Health(checks),                      // readiness fails until the keys are fetched
	))
	s.Get("/todos", func(c *jwt.Claims[struct{}]) (string, error) { return c.Subject, nil }, jwt.Scopes("todos:read"))
	return s.Post("/todos", func() (string, error) { return "created", nil }, jwt.Scopes("todos:write"))
}, app.Name("api"))
s.Register(checks.Routes())

}
