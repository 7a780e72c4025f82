package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing/fstest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// sendJSON answers a JSON body sent to target, as status and body.
func sendJSON(s *app.Server, target, body string) string {
	req := httptest.NewRequest("POST", target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Inject(req)
	if err != nil {
		return err.Error()
	}
	b, _ := io.ReadAll(res.Body)
	return fmt.Sprintf("%d %s", res.StatusCode, b)
}

// A typed route: one input struct, filled from the path and query and
// validated, and a value out, sent as JSON.
func ExampleGet() {
	type todo struct {
		ID    int64  `json:"id"`
		Title string `json:"title"`
	}
	type getTodo struct {
		app.In
		ID    int64  `path:"id" validate:"min=1"`
		Title string `query:"title" default:"untitled"`
	}
	s := app.New()
	app.Get(s, "/todos/:id", func(_ context.Context, in getTodo) (todo, error) {
		return todo{ID: in.ID, Title: in.Title}, nil
	})

	fmt.Println(get(s, "/todos/7?title=milk"))
	fmt.Println(get(s, "/todos/7"))
	fmt.Println(get(s, "/todos/0"))
	// Output:
	// 200 {"id":7,"title":"milk"}
	// 200 {"id":7,"title":"untitled"}
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be >= 1","validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]}
}

// A typed route with a validated body: the handler runs only with a body
// that passed, and Created answers 201 with a Location header.
func ExamplePost() {
	type newTodo struct {
		Title string `json:"title" validate:"required,max=20"`
	}
	type createTodo struct {
		app.In
		Body newTodo `body:""`
	}
	s := app.New()
	app.Post(s, "/todos", func(_ context.Context, in createTodo) (app.Created[newTodo], error) {
		return app.Created[newTodo]{Location: "/todos/1", Value: in.Body}, nil
	})

	fmt.Println(sendJSON(s, "/todos", `{"title":"milk"}`))
	fmt.Println(sendJSON(s, "/todos", `{}`))
	// Output:
	// 201 {"title":"milk"}
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/title is required","validation":[{"path":"body/title","rule":"required","message":"is required"}]}
}

// A request value is built at most once per request that takes it, by a
// constructor that sees the request; its cleanup learns whether the
// request failed, as a transaction's commit or rollback does.
func ExampleServer_ProvideRequest() {
	type tenant struct{ name string }
	type tenantIn struct {
		app.In
		Req *httpx.Request
	}
	s := app.New()
	s.ProvideRequest(app.Provider(func(_ context.Context, in tenantIn) (*tenant, func(failed bool) error, error) {
		name := in.Req.Header("X-Tenant")
		if name == "" {
			return nil, nil, httpx.NewError(400, "NO_TENANT", "X-Tenant is required")
		}
		return &tenant{name: name}, func(failed bool) error {
			fmt.Println("done with", name, "failed:", failed)
			return nil
		}, nil
	}))
	type hello struct {
		app.In
		Tenant *tenant
	}
	app.Get(s, "/hello", func(_ context.Context, in hello) (string, error) { return "hello " + in.Tenant.name, nil })
	app.Get(s, "/free", func(context.Context, struct{}) (string, error) { return "no tenant built", nil })

	req := httptest.NewRequest("GET", "/hello", nil)
	req.Header.Set("X-Tenant", "acme")
	res, _ := s.Inject(req)
	b, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(b))
	fmt.Println(get(s, "/hello"))
	fmt.Println(get(s, "/free"))
	// Output:
	// done with acme failed: false
	// 200 hello acme
	// 400 {"statusCode":400,"code":"NO_TENANT","error":"Bad Request","message":"X-Tenant is required"}
	// 200 no tenant built
}

// A standard net/http middleware, encapsulated: it runs for the routes of
// the context that adds it and its descendants, not for a sibling's.
func ExampleServer_Use() {
	tag := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Pattern", r.Pattern) // the matched route, as ServeMux writes it
			next.ServeHTTP(w, r)
		})
	}
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Use(tag)
		return s.Get("/items/:id", func() (string, error) { return "item", nil })
	}, app.Name("api"))
	s.Get("/other", func() (string, error) { return "other", nil })

	for _, target := range []string{"/items/7", "/other"} {
		res, _ := s.Inject(httptest.NewRequest("GET", target, nil))
		fmt.Printf("%s: %q\n", target, res.Header.Get("X-Pattern"))
	}
	// Output:
	// /items/7: "GET /items/{id}"
	// /other: ""
}

// A standard http.Handler serves every method and path under a prefix,
// which it sees stripped, with the context's hooks applied.
func ExampleServer_Mount() {
	files := fstest.MapFS{"app.css": {Data: []byte("body{}")}}
	s := app.New()
	s.Register(func(s *app.Server) error {
		return s.Mount("/static", http.FileServer(http.FS(files)))
	}, app.Prefix("/v1"))

	fmt.Println(get(s, "/v1/static/app.css"))
	fmt.Println(get(s, "/v1/static/missing.css"))
	// Output:
	// 200 body{}
	// 404 404 page not found
}

// Register gives a plugin its own context; the same plugin registered
// twice, under two prefixes, is two contexts with their own declarations.
func ExampleServer_Register() {
	type who struct {
		app.In
		Version string `name:"version"`
	}
	api := func(version string) func(*app.Server) error {
		return func(s *app.Server) error {
			s.DecorateRequest("version", version)
			return app.Get(s, "/hello", func(_ context.Context, w who) (string, error) { return "hello from " + w.Version, nil })
		}
	}
	s := app.New()
	s.Register(api("v1"), app.Name("v1"), app.Prefix("/v1"))
	s.Register(api("v2"), app.Name("v2"), app.Prefix("/v2"))

	fmt.Println(get(s, "/v1/hello"))
	fmt.Println(get(s, "/v2/hello"))
	fmt.Println(get(s, "/hello"))
	// Output:
	// 200 hello from v1
	// 200 hello from v2
	// 404 {"message":"Route GET:/hello not found","error":"Not Found","statusCode":404}
}
