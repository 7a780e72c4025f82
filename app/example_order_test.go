package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A hook that depends on a decorator another hook sets says so, and
// Ready checks the order: registered before the hook that sets the
// tenant, the audit hook would only ever see it empty.
func ExampleReadsDecorators() {
	setTenant := func(req *httpx.Request) error { return req.SetDecorator("tenant", req.Header("X-Tenant")) }
	audit := func(req *httpx.Request) error { return nil }

	s := app.New()
	_ = s.DecorateRequest("tenant", "")
	_ = s.AddHook(app.OnRequest, audit, app.ReadsDecorators("tenant"))
	_ = s.AddHook(app.OnRequest, setTenant, app.SetsDecorators("tenant"))
	_ = s.Get("/", func() (string, error) { return "ok", nil })
	fmt.Println(s.Ready())
	// Output:
	// route GET / (root) has an onRequest hook (root) that reads request decorator "tenant" before an onRequest hook (root) sets it: register the hook after it
}

// An outermost middleware of a child context wraps the root's middleware
// too, for the child's routes: the root's refusal carries its mark.
func ExampleOutermost() {
	refuse := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			app.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, "", "slow down"))
		})
	}
	mark := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Policy", "api")
			app.Vary(r, "Origin") // kept whatever the handler sets
			next.ServeHTTP(w, r)
		})
	}
	s := app.New()
	_ = s.Use(refuse)
	_ = s.Register(func(s *app.Server) error {
		_ = s.Use(mark, app.Outermost())
		return s.Get("/api", func() (string, error) { return "ok", nil })
	}, app.Name("api"))
	res, _ := s.Inject(httptest.NewRequest("GET", "/api", nil))
	fmt.Println(res.StatusCode, res.Header.Get("X-Policy"), res.Header.Get("Vary"))
	// Output:
	// 429 api Origin
}
