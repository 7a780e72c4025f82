package app_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// An observer hears of every request its context serves, with the
// route's pattern and the context that answered: what metrics need, and
// a middleware cannot see.
func ExampleServer_Observe() {
	s := app.New()
	_ = s.Observe(app.Observer{
		Start: func(o app.Observation) context.Context {
			fmt.Println("start", o.Request.Method, o.Request.URL.Path)
			return nil // keep the request's context
		},
		End: func(o app.Observation) {
			fmt.Printf("end %q %s %d\n", o.Route, o.Context, o.Status)
		},
	})
	_ = s.Register(func(api *app.Server) error {
		return api.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	}, app.Prefix("/api"), app.Name("api"))
	if err := s.Ready(); err != nil {
		panic(err)
	}
	for _, target := range []string{"/api/todos/7", "/elsewhere"} {
		res, _ := s.Inject(httptest.NewRequest("GET", target, nil))
		res.Body.Close()
	}
	// Output:
	// start GET /api/todos/7
	// end "/api/todos/{id}" root > api 200
	// start GET /elsewhere
	// end "" root 404
}

// The request id travels back to the client, which can quote it.
func ExampleWithRequestIDResponseHeader() {
	s := app.New(app.WithRequestIDHeader("X-Request-Id"), app.WithRequestIDResponseHeader("X-Request-Id"))
	s.Get("/", func() (string, error) { return "ok", nil })
	if err := s.Ready(); err != nil {
		panic(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Request-Id", "edge-7f3a")
	res, _ := s.Inject(r)
	res.Body.Close()
	fmt.Println(res.Header.Get("X-Request-Id"))
	res, _ = s.Inject(httptest.NewRequest("GET", "/", nil))
	res.Body.Close()
	fmt.Println(res.Header.Get("X-Request-Id"))
	// Output:
	// edge-7f3a
	// req-1
}
