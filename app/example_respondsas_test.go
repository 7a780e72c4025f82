package app_test

import (
	"fmt"

	"github.com/burrow-go/burrow/app"
)

// A reply whose media type its Go type cannot tell is declared with it,
// for the route's description (and the OpenAPI document made of it).
func ExampleRespondsAs() {
	s := app.New()
	_ = s.Get("/events", func() error { return nil }, app.RespondsAs(200, "text/event-stream", nil))
	_ = s.Get("/export", func() error { return nil }, app.RespondsAs(200, "text/csv", nil, "content-disposition"))
	if err := s.Ready(); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Routes() {
		res := r.Responses[0]
		fmt.Println(r.Path, res.Status, res.MediaType, res.Headers)
	}
	// Output:
	// /events 200 text/event-stream []
	// /export 200 text/csv [Content-Disposition]
}
