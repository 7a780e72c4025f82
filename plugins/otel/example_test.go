package otel_test

import (
	"context"
	"fmt"
	"net/http/httptest"

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
