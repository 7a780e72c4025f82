package cors_test

import (
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/plugins/cors"
)

// Two contexts serve one path with two policies; each preflight is
// answered by the context serving the method it announces, before the
// admin context's bearer-auth can refuse it.
func Example() {
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(cors.Plugin(cors.Origins("https://app.example", "https://admin.example")))
		return s.Get("/items/:id", func() (string, error) { return "item", nil })
	}, app.Name("public"))
	s.Register(func(s *app.Server) error {
		s.Register(cors.Plugin(cors.Origins("https://admin.example"), cors.MaxAge(time.Hour)))
		s.Register(bearer.Plugin(bearer.Keys("k1")))
		return s.Patch("/items/:id", func() (string, error) { return "patched", nil })
	}, app.Name("admin"))

	for _, p := range []struct{ origin, method string }{
		{"https://app.example", "GET"},
		{"https://app.example", "PATCH"},
		{"https://admin.example", "PATCH"},
		{"https://admin.example", "PUT"},
	} {
		req := httptest.NewRequest("OPTIONS", "/items/1", nil)
		req.Header.Set("Origin", p.origin)
		req.Header.Set("Access-Control-Request-Method", p.method)
		res, _ := s.Inject(req)
		fmt.Printf("%s %s: %d allow-origin=%q max-age=%q\n", p.origin, p.method, res.StatusCode,
			res.Header.Get("Access-Control-Allow-Origin"), res.Header.Get("Access-Control-Max-Age"))
	}
	// Output:
	// https://app.example GET: 204 allow-origin="https://app.example" max-age=""
	// https://app.example PATCH: 204 allow-origin="" max-age=""
	// https://admin.example PATCH: 204 allow-origin="https://admin.example" max-age="3600"
	// https://admin.example PUT: 405 allow-origin="" max-age=""
}

// A route may turn CORS off, or set a policy of its own over its
// context's.
func ExampleOverride() {
	s := app.New()
	s.Register(cors.Plugin(cors.Origins("https://app.example")))
	s.Get("/feed", func() (string, error) { return "feed", nil }, cors.Override(cors.Origins("*")))
	s.Get("/internal", func() (string, error) { return "internal", nil }, cors.Off())

	for _, path := range []string{"/feed", "/internal"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Origin", "https://elsewhere.example")
		res, _ := s.Inject(req)
		fmt.Printf("%s allow-origin=%q\n", path, res.Header.Get("Access-Control-Allow-Origin"))
	}
	// Output:
	// /feed allow-origin="*"
	// /internal allow-origin=""
}
