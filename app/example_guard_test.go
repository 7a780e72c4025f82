package app_test

import (
	"errors"
	"fmt"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A plugin that guards routes declares what it enforces where its hook
// lands; a policy on a context makes Ready prove that every route of it
// is guarded, and PrintRoutes shows what guards each route.
func ExampleServer_DeclareGuard() {
	apiKey := func(s *app.Server) error {
		if err := s.DeclareGuard(app.Guard{Kind: app.GuardAuth, Name: "apiKey"}); err != nil {
			return err
		}
		return s.AddHook(app.OnRequest, func(req *httpx.Request) error {
			if req.Header("X-API-Key") != "secret" {
				return httpx.NewError(401, "", "API key required")
			}
			return nil
		})
	}
	build := func(guarded bool) *app.Server {
		s := app.New()
		s.Register(func(s *app.Server) error {
			s.Policy(app.RequireAuth())
			s.Get("/status", func() (string, error) { return "up", nil }, app.Public())
			return s.Register(func(s *app.Server) error {
				if guarded {
					s.Register(app.Wrap(apiKey, app.Name("api-key")))
				}
				return s.Delete("/todos", func() error { return nil })
			}, app.Name("todos"))
		}, app.Name("api"))
		return s
	}

	err := build(false).Ready()
	fmt.Println(errors.Is(err, app.ErrPolicy), err)

	s := build(true)
	if err := s.Ready(); err != nil {
		panic(err)
	}
	fmt.Print(s.PrintRoutes())
	// Output:
	// true route DELETE /todos (root > api > todos) requires no authentication: register the plugin that authenticates where the route is, or mark it app.Public() (a policy of root > api)
	// /
	// ├── status (GET, HEAD) root > api
	// └── todos (DELETE) root > api > todos
	//       • guards: auth apiKey
}
