//line /work/wt/caching/docs/tracing.md:9
package main

import (
	"context"
	"log"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

func main() {
	// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER...
	shutdown, err := otel.Setup(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = shutdown(ctx) // the last spans are exported here
	}()

	s := app.New()
	if err := s.Register(otel.Plugin()); err != nil {
		log.Fatal(err)
	}
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	log.Println(s.Listen(":8080"))
}
