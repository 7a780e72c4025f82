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

// The 3.2 rendition holds what 3.1 cannot: a QUERY route is its path's
// query operation, and a typed event stream is described by its items.
func ExampleDocument_JSON32() {
	type filter struct {
		Text string `json:"text"`
	}
	type tick struct {
		N int `json:"n"`
	}
	s := app.New()
	app.QueryRoute(s, "/todos", func(context.Context, struct {
		app.In
		Filter filter `body:""`
	}) ([]string, error) {
		return nil, nil
	})
	app.Events(s, "/ticks", func(context.Context, struct{}, *app.EventStream[tick]) error { return nil })
	if err := s.Ready(); err != nil {
		fmt.Println(err)
		return
	}
	d, err := openapi.Build(s.Routes(), openapi.Info{Title: "Todos"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   struct {
			Todos struct {
				Query struct {
					OperationID string `json:"operationId"`
				} `json:"query"`
			} `json:"/todos"`
			Ticks struct {
				Get struct {
					Responses map[string]struct {
						Content map[string]struct {
							ItemSchema struct {
								Properties map[string]struct {
									ContentSchema map[string]string `json:"contentSchema"`
								} `json:"properties"`
							} `json:"itemSchema"`
						} `json:"content"`
					} `json:"responses"`
				} `json:"get"`
			} `json:"/ticks"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(d.JSON32(), &doc); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.OpenAPI, doc.Paths.Todos.Query.OperationID)
	fmt.Println(doc.Paths.Ticks.Get.Responses["200"].Content["text/event-stream"].ItemSchema.Properties["data"].ContentSchema["$ref"])
	// Output:
	// 3.2.0 queryTodos
	// #/components/schemas/Tick
}
