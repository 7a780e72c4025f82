package otel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ErrProtocol is Setup's error for an OTLP protocol other than
// http/protobuf, or a traces exporter other than otlp and none.
var ErrProtocol = errors.New("unsupported OpenTelemetry exporter setting")

// Setup configures OpenTelemetry's global tracer provider and propagator
// from the standard environment variables, for an application that asks
// for it (Plugin reads the globals when it is made: call Setup first):
//
//   - OTEL_SDK_DISABLED=true: nothing is set up;
//   - OTEL_TRACES_EXPORTER: otlp (the default) or none;
//   - OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
//     OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT and the
//     other OTLP exporter variables, over HTTP;
//     OTEL_EXPORTER_OTLP_PROTOCOL, when set, must be http/protobuf;
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: the resource;
//   - OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG: the sampler;
//   - OTEL_BSP_*: the batching of exports.
//
// The propagator is W3C trace context and baggage. shutdown flushes the
// spans not yet exported, then stops the exporter: call it when the
// server has closed, with a context bounding how long it may take.
func Setup(ctx context.Context) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return none, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if p := os.Getenv(v); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%s is %q, but only http/protobuf is supported: %w", v, p, ErrProtocol)
		}
	}
	res, err := resource.Merge(resource.Default(), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("read the OpenTelemetry resource from the environment: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	switch e := os.Getenv("OTEL_TRACES_EXPORTER"); e {
	case "", "otlp":
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("make the OTLP trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	case "none":
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER is %q, but only otlp and none are supported: %w", e, ErrProtocol)
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}
