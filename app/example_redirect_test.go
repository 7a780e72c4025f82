package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// A log-in form answers with a redirect: 303 See Other, so the browser
// loads the next page with a GET and a reload never posts the form
// again. The next page comes from the form, yet cannot be another site:
// a Redirect's Location is a path of this one unless External is set.
func ExampleRedirect() {
	s := app.New()
	_ = app.Post(s, "/login", func(_ context.Context, in struct {
		app.In
		User string `form:"user" validate:"required"`
		Next string `form:"next" default:"/todos"`
	}) (app.Redirect, error) {
		return app.Redirect{Location: in.Next}, nil
	})
	for _, form := range []string{"user=ann", "user=ann&next=/todos/7", "user=ann&next=//evil.example"} {
		req := httptest.NewRequest("POST", "/login", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := s.Inject(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		res.Body.Close()
		fmt.Printf("%d %q\n", res.StatusCode, res.Header.Get("Location"))
	}
	for _, r := range s.Routes() {
		fmt.Println(r.Method, r.Path, r.Responses[0].Status, r.Responses[0].Headers)
	}
	_ = s.Close(context.Background())
	// Output:
	// 303 "/todos"
	// 303 "/todos/7"
	// 500 ""
	// POST /login 303 [Location]
}

// Status gives a Redirect another redirect status: 308 keeps the
// method and says the move is for good.
func ExampleRedirect_status() {
	s := app.New()
	_ = app.Get(s, "/old/:id", func(_ context.Context, in struct {
		app.In
		ID int `path:"id"`
	}) (app.Redirect, error) {
		return app.Redirect{Location: fmt.Sprintf("/todos/%d", in.ID)}, nil
	}, app.Status(http.StatusPermanentRedirect))
	res, err := s.Inject(httptest.NewRequest("GET", "/old/7", nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("Location"))
	_ = s.Close(context.Background())
	// Output:
	// 308 /todos/7
}
