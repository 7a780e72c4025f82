package main

import (
	"io"

	"github.com/burrow-go/burrow/app"
)

// printRoutes writes the routes of s, once Ready, to w as a JSON array
// (todo -routes): one object per route, with what guards it — the
// schemes that authenticate it, whether cross-site requests are refused,
// the rate-limit policies counting it, whether CORS answers it — as
// Ready proved it from the plugins each route's contexts registered.
func printRoutes(w io.Writer, s *app.Server) error {
	_, err := io.WriteString(w, s.PrintRoutes(app.AsJSON()))
	return err
}
