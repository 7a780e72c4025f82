//line /work/wt/caching/docs/compression.md:4
package main

import (
	"log"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/compress"
)

func main() {
	s := app.New()
	// zstd, br or gzip, as each client prefers, for every answer of the
	// root and its descendants of 1 KiB or more.
	s.Register(compress.Plugin())
	s.Get("/report", func() (string, error) { return strings.Repeat("all quiet. ", 200), nil })
	// A context that reflects input next to secrets is left alone (BREACH).
	s.Register(func(s *app.Server) error {
		s.Register(compress.Off())
		return s.Get("/me", func() (string, error) { return "token=…", nil })
	}, app.Prefix("/account"))
	log.Fatal(s.Listen("127.0.0.1:8000"))
}
