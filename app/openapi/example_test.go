package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
)

// The plugin documents the context that registers it and its
// descendants; a route's security comes from the plugins its context can
// see, with nothing written on the route.
func ExamplePlugin() {
	type todo struct {
		ID    int64  `json:"id"`
		Title string `json:"title" validate:"required"`
	}
	type byID struct {
		app.In
		ID int64 `path:"id"`
	}
	s := app.New()
	s.Register(openapi.Plugin(openapi.Info{Title: "Todos", Version: "1.0.0"}))
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k1")))
		return app.Get(s, "/todos/:id", func(_ context.Context, in byID) (todo, error) { return todo{ID: in.ID}, nil })
	}, app.Name("private"))
	app.Get(s, "/health", func(context.Context, struct{}) (string, error) { return "ok", nil })

	res, err := s.Inject(httptest.NewRequest("GET", "/openapi.json", nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Security    []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.OpenAPI)
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		op := doc.Paths[p]["get"]
		fmt.Println(p, op.OperationID, op.Security)
	}
	// Output:
	// 3.1.0
	// /health getHealth []
	// /todos/{id} getTodosById [map[bearerAuth:[]]]
}
