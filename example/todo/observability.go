package main

import (
	"context"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/otel"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

// flushTimeout bounds the export of the spans and metrics still buffered when the
// service stops: a receiver that is down costs the shutdown this long,
// not the exporter's minute of retries.
const flushTimeout = 5 * time.Second

// observability is what the service tells its operators besides its
// logs: the public server's request metrics, scraped at the admin
// listener's GET /metrics (with -admin only, as there is nowhere else to
// read them), and a trace per request and the OpenTelemetry request
// metrics, exported over OTLP/HTTP when the environment names an
// exporter. The zero value observes nothing.
type observability struct {
	metrics *prometheus.Metrics // nil without an admin listener
	tracing bool
	flush   func(context.Context) error // the tracer and meter providers' shutdown
}

// newObservability sets up what admin (an admin listener is configured)
// and getenv ask for. Tracing is on when an OTLP endpoint or a traces
// exporter is named (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_TRACES_EXPORTER) and the SDK
// is not disabled: a service nobody collects traces from would
// otherwise send them to the default localhost:4318 and log every
// failure. otel.Setup then reads the OTEL_* variables from the process's
// environment (getenv is os.Getenv in main) and sets OpenTelemetry's
// global tracer provider, meter provider (http.server.request.duration
// by route, exported every OTEL_METRIC_EXPORT_INTERVAL and at exit) and
// propagator.
func newObservability(ctx context.Context, admin bool, getenv func(string) string) (*observability, error) {
	o := &observability{flush: func(context.Context) error { return nil }}
	if admin {
		o.metrics = prometheus.New()
	}
	if !tracingWanted(getenv) {
		return o, nil
	}
	flush, err := otel.Setup(ctx)
	if err != nil {
		return nil, err
	}
	o.tracing, o.flush = true, flush
	return o, nil
}

// tracingWanted reports whether getenv names a traces exporter.
func tracingWanted(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"} {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}

// plugin observes every request of the public server, registered at its
// root: the span first, so that the metrics' exemplars carry its trace
// id. The incoming trace context is trusted (otel.TrustIncoming, where
// the plugin's default only links to it): a request carrying a
// traceparent continues its caller's trace, its sampling decision and
// baggage included, as the service is meant to run behind a gateway
// that sets or cleans these headers, called by its own page and
// services.
func (o *observability) plugin() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if o.tracing {
			if err := s.Register(otel.Plugin(otel.TrustIncoming())); err != nil {
				return err
			}
		}
		if o.metrics != nil {
			return s.Register(o.metrics.Plugin())
		}
		return nil
	}, app.Name("observability"))
}

// routes adds GET /metrics to the admin server, when there are metrics.
func (o *observability) routes(admin *app.Server) {
	if o != nil && o.metrics != nil {
		admin.Get("/metrics", o.metrics.Handler())
	}
}

// close exports the spans and metrics still buffered, once the servers
// have closed and every request's span has ended. A failure is logged, not returned:
// the service itself stopped as it should.
func (o *observability) close(logger *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := o.flush(ctx); err != nil {
		logger.Error("exporting the last spans and metrics", zap.Error(err))
	}
}
