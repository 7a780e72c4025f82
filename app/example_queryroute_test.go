package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A QUERY route reads its question from the body, as a search too long
// for a URL; it is safe and idempotent, as GET, and has no HEAD twin.
func ExampleQueryRoute() {
	type filter struct {
		Text string `json:"text" validate:"required"`
	}
	s := app.New()
	_ = app.QueryRoute(s, "/todos", func(_ context.Context, in struct {
		app.In
		Filter filter `body:""`
	}) ([]string, error) {
		return []string{"buy " + in.Filter.Text}, nil
	})
	for _, method := range []string{httpx.MethodQuery, "HEAD"} {
		req := httptest.NewRequest(method, "/todos", strings.NewReader(`{"text":"milk"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := s.Inject(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		fmt.Println(method, res.StatusCode, res.Header.Get("Allow"), strings.TrimSpace(string(body)))
	}
	// Output:
	// QUERY 200  ["buy milk"]
	// HEAD 405 QUERY
}
