package bearer_test

import (
	"fmt"
	"io"
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

// A verifier guards chosen routes only; its failures go through the error
// handler, here the default one.
func ExampleNew() {
	v, err := bearer.New(bearer.Keys("k1"))
	if err != nil {
		panic(err)
	}
	s := app.New()
	s.Get("/admin", func() (string, error) { return "secret", nil }, app.WithHook(app.OnRequest, v.Verify))
	s.Get("/", func() (string, error) { return "hello", nil })

	for _, path := range []string{"/admin", "/"} {
		res, _ := s.Inject(httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(res.Body)
		fmt.Println(path, res.StatusCode, string(body))
	}
	// Output:
	// /admin 401 {"statusCode":401,"code":"FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER","error":"Unauthorized","message":"missing authorization header"}
	// / 200 hello
}

// API keys from a store of their hashes, with scopes per key.
func ExampleStore() {
	keys := bearer.MemoryKeys(
		bearer.APIKey{ID: "reader", Hash: bearer.HashKey("key-of-the-reader"), Scopes: []string{"todos:read"}},
		bearer.APIKey{ID: "writer", Hash: bearer.HashKey("key-of-the-writer"), Scopes: []string{"todos:read", "todos:write"}},
	)
	s := app.New()
	s.Register(bearer.Plugin(bearer.Store(keys), bearer.Header("X-API-Key")))
	s.Get("/todos", func() (string, error) { return "[]", nil })
	s.Delete("/todos", func() error { return nil }, bearer.Scopes("todos:write"))

	for _, r := range []struct{ method, key string }{
		{"GET", "key-of-the-reader"}, {"DELETE", "key-of-the-reader"}, {"DELETE", "key-of-the-writer"}, {"GET", "guess"},
	} {
		req := httptest.NewRequest(r.method, "/todos", nil)
		req.Header.Set("X-API-Key", r.key)
		res, _ := s.Inject(req)
		fmt.Println(r.method, r.key, res.StatusCode)
	}
	// Output:
	// GET key-of-the-reader 200
	// DELETE key-of-the-reader 403
	// DELETE key-of-the-writer 200
	// GET guess 401
}
