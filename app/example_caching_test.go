package app_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
)

type page struct {
	Title string `json:"title"`
}

// A route with ETag tags its 200s with a hash of the body; a client that
// sends the tag back in If-None-Match gets 304 and no body while the
// answer is unchanged. CacheControl tells the browser to keep the answer
// for this user only and ask each time.
func ExampleETag() {
	s := app.New()
	_ = app.Get(s, "/page", func(context.Context, struct{}) (page, error) {
		return page{Title: "home"}, nil
	}, app.ETag(), app.CacheControl("private, no-cache"))

	res, _ := s.Inject(httptest.NewRequest("GET", "/page", nil))
	res.Body.Close()
	tag := res.Header.Get("ETag")
	fmt.Println(res.StatusCode, res.Header.Get("Cache-Control"))

	req := httptest.NewRequest("GET", "/page", nil)
	req.Header.Set("If-None-Match", tag)
	res, _ = s.Inject(req)
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("ETag") == tag, res.ContentLength)
	_ = s.Close(context.Background())
	// Output:
	// 200 private, no-cache
	// 304 true 0
}

// A write that carries If-Match changes the resource only if it is still
// the version the client read: the handler compares the tag of the
// current value (TagOf, the tag GET sends for it) with the request's
// Preconditions. RequireIfMatch refuses a write without one.
func ExamplePreconditions() {
	current := page{Title: "home"}
	s := app.New()
	_ = app.Get(s, "/page", func(context.Context, struct{}) (page, error) { return current, nil }, app.ETag())
	_ = app.Put(s, "/page", func(_ context.Context, in struct {
		app.In
		Pre  app.Preconditions `header:""`
		Body page              `body:""`
	}) (page, error) {
		tag, err := app.TagOf(current)
		if err != nil {
			return page{}, err
		}
		if err := in.Pre.Check(tag); err != nil {
			return page{}, err // 412: changed since the client read it
		}
		current = in.Body
		return current, nil
	}, app.RequireIfMatch())

	res, _ := s.Inject(httptest.NewRequest("GET", "/page", nil))
	res.Body.Close()
	tag := res.Header.Get("ETag")
	put := func(ifMatch string) {
		req := httptest.NewRequest("PUT", "/page", strings.NewReader(`{"title":"new"}`))
		req.Header.Set("Content-Type", "application/json")
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		res, _ := s.Inject(req)
		res.Body.Close()
		fmt.Println(res.StatusCode)
	}
	put("")  // no If-Match
	put(tag) // the version read: proceeds
	put(tag) // stale now
	_ = s.Close(context.Background())
	// Output:
	// 428
	// 200
	// 412
}
