//line /work/wt/caching/docs/metrics.md:9
package main

import (
	"log"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

func main() {
	m := prometheus.New() // a registry of this server's own
	s := app.New()
	if err := s.Register(m.Plugin()); err != nil { // observes root and every context below
		log.Fatal(err)
	}
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })

	admin := app.New() // the scrape lives on an admin listener, not the public one
	admin.Get("/metrics", m.Handler())
	go func() { log.Fatal(admin.Listen("127.0.0.1:9090")) }()
	log.Fatal(s.Listen(":8080"))
}
