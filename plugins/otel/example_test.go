package otel_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// Each request is a SERVER span named after its route.
func Example() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())

	s := app.New()
	_ = s.Register(otel.Plugin(otel.TracerProvider(tp)))
	_ = s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	if err := s.Ready(); err != nil {
		panic(err)
	}
	res, _ := s.Inject(httptest.NewRequest("GET", "/todos/7", nil))
	res.Body.Close()

	for _, sp := range rec.Ended() {
		fmt.Println(sp.Name(), sp.SpanKind())
		for _, kv := range sp.Attributes() {
			switch kv.Key {
			case "http.route", "burrow.context", "http.response.status_code":
				fmt.Println(" ", kv.Key, kv.Value.String())
			}
		}
	}
	// Output:
	// GET /todos/{id} server
	//   http.route /todos/{id}
	//   burrow.context root
	//   http.response.status_code 200
}

// A service whose callers are its own continues their traces; by
// default the caller's span would only be a link of a new trace.
func ExampleTrustIncoming() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())

	for _, trust := range []bool{false, true} {
		s := app.New()
		opts := []otel.Option{otel.TracerProvider(tp), otel.Propagator(propagation.TraceContext{})}
		if trust {
			opts = append(opts, otel.TrustIncoming())
		}
		_ = s.Register(otel.Plugin(opts...))
		_ = s.Get("/", func() (string, error) { return "hi", nil })
		if err := s.Ready(); err != nil {
			panic(err)
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		res, _ := s.Inject(req)
		res.Body.Close()
		sp := rec.Ended()[len(rec.Ended())-1]
		fmt.Println("trusted:", trust, "continued:", sp.SpanContext().TraceID().String() == "4bf92f3577b34da6a3ce929d0e0e4736", "links:", len(sp.Links()))
	}
	// Output:
	// trusted: false continued: false links: 1
	// trusted: true continued: true links: 0
}
