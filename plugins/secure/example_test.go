package secure_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/secure"
)

// Helmet's headers on the HTML context, a stricter policy on the API
// context, and a nonce for a page's inline script.
func Example() {
	s := app.New()
	s.Register(secure.Plugin(secure.Directive("script-src", "'self'", secure.NonceSource)))
	type page struct {
		app.In
		Nonce secure.Nonce
	}
	app.Get(s, "/", func(_ context.Context, in page) (string, error) {
		return `<script nonce="` + string(in.Nonce) + `">…</script>`, nil
	})
	s.Register(func(s *app.Server) error {
		s.Register(secure.Plugin(secure.API()))
		return s.Get("/todos", func() ([]string, error) { return []string{}, nil })
	}, app.Prefix("/api"))

	res, _ := s.Inject(httptest.NewRequest("GET", "/api/todos", nil))
	fmt.Println(res.Header.Get("Content-Security-Policy"))
	fmt.Println(res.Header.Get("X-Frame-Options"), res.Header.Get("X-Content-Type-Options"))
	res, _ = s.Inject(httptest.NewRequest("GET", "/nowhere", nil))
	fmt.Println(res.StatusCode, res.Header.Get("X-Frame-Options"), res.Header.Get("Cross-Origin-Opener-Policy"))
	// Output:
	// default-src 'none';frame-ancestors 'none'
	// DENY nosniff
	// 404 SAMEORIGIN same-origin
}
