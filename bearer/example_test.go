package bearer_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
)

// The plugin guards the context that registers it, and nothing else.
func Example() {
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k1")))
		return s.Get("/private", func() (string, error) { return "secret", nil })
	})
	s.Get("/public", func() (string, error) { return "hello", nil })

	for _, r := range []struct{ path, auth string }{
		{"/private", ""}, {"/private", "Bearer k1"}, {"/public", ""},
	} {
		req := httptest.NewRequest("GET", r.path, nil)
		if r.auth != "" {
			req.Header.Set("Authorization", r.auth)
		}
		res, _ := s.Inject(req)
		fmt.Println(r.path, r.auth, res.StatusCode)
	}
	// Output:
	// /private  401
	// /private Bearer k1 200
	// /public  200
}
