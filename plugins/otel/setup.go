package otel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ErrProtocol is Setup's error for an OTLP protocol other than
// http/protobuf, or a traces or metrics exporter other than otlp and
// none.
var ErrProtocol = errors.New("unsupported OpenTelemetry exporter setting")

// Setup configures OpenTelemetry's global tracer provider, meter
// provider and propagator from the standard environment variables, for
// an application that asks for it (Plugin reads the globals when it is
// made: call Setup first):
//
//   - OTEL_SDK_DISABLED=true: nothing is set up;
//   - OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER: otlp (the
//     default) or none;
//   - OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS,
//     OTEL_EXPORTER_OTLP_TIMEOUT and the other OTLP exporter variables,
//     over HTTP; OTEL_EXPORTER_OTLP_PROTOCOL (and its _TRACES_ and
//     _METRICS_ forms), when set, must be http/protobuf;
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: the resource;
//   - OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG: the sampler;
//   - OTEL_BSP_*: the batching of span exports;
//   - OTEL_METRIC_EXPORT_INTERVAL and OTEL_METRIC_EXPORT_TIMEOUT: how
//     often metrics are exported (default every 60 s).
//
// The propagator is W3C trace context and baggage. shutdown exports the
// spans and metrics not yet exported, then stops both providers: call it
// when the server has closed, with a context bounding how long it may
// take.
func Setup(ctx context.Context) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return none, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := os.Getenv(v); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%s is %q, but only http/protobuf is supported: %w", v, p, ErrProtocol)
		}
	}
	res, err := resource.Merge(resource.Default(), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("read the OpenTelemetry resource from the environment: %w", err)
	}
	var spans sdktrace.SpanExporter
	switch e := os.Getenv("OTEL_TRACES_EXPORTER"); e {
	case "", "otlp":
		if spans, err = otlptracehttp.New(ctx); err != nil {
			return nil, fmt.Errorf("make the OTLP trace exporter: %w", err)
		}
	case "none":
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER is %q, but only otlp and none are supported: %w", e, ErrProtocol)
	}
	metrics, err := meterOptions(ctx, res)
	if err != nil {
		if spans != nil {
			_ = spans.Shutdown(ctx)
		}
		return nil, err
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if spans != nil {
		topts = append(topts, sdktrace.WithBatcher(spans)) // its goroutine starts here
	}
	tp := sdktrace.NewTracerProvider(topts...)
	mp := sdkmetric.NewMeterProvider(metrics...)
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return func(ctx context.Context) error {
		return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
	}, nil
}

// meterOptions are the meter provider's options from the environment:
// res, and an OTLP exporter read periodically unless
// OTEL_METRICS_EXPORTER is none.
func meterOptions(ctx context.Context, res *resource.Resource) ([]sdkmetric.Option, error) {
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	switch e := os.Getenv("OTEL_METRICS_EXPORTER"); e {
	case "", "otlp":
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("make the OTLP metric exporter: %w", err)
		}
		// The reader's interval and time-out are OTEL_METRIC_EXPORT_*'s.
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	case "none":
	default:
		return nil, fmt.Errorf("OTEL_METRICS_EXPORTER is %q, but only otlp and none are supported: %w", e, ErrProtocol)
	}
	return opts, nil
}
