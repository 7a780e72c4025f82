package otel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
)

// Option configures Plugin.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	logIDs         bool
	trust          bool
	steps          bool
	skip           func(app.Observation) bool
}

func newConfig(opts []Option) config {
	c := config{logIDs: true}
	for _, o := range opts {
		o(&c)
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	if c.propagator == nil {
		c.propagator = otel.GetTextMapPropagator()
	}
	return c
}

// TracerProvider sets where spans go (default: otel.GetTracerProvider(),
// read when the plugin is made).
func TracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// MeterProvider sets where the duration metric goes (default:
// otel.GetMeterProvider()).
func MeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// Propagator sets how the incoming trace context is read (default:
// otel.GetTextMapPropagator(); Setup sets it to W3C trace context and
// baggage). Unless TrustIncoming, what it reads is only linked to.
func Propagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// TrustIncoming makes a request's trace context its span's parent; by
// default it is only a link. Trusted, a request carrying a traceparent
// continues that trace: its trace id, its sampling decision (a sampler
// respecting the parent, as Setup's default does, drops a request
// flagged unsampled) and its baggage, which reaches the handler and is
// sent on with outgoing calls. Untrusted, every request starts a trace
// of its own, sampled by the server's sampler, with the incoming span
// context as a link; incoming tracestate and baggage are dropped. Trust
// it behind a gateway or mesh that sets or cleans these headers, or
// when the callers are your own services; not on an endpoint the
// internet reaches.
func TrustIncoming() Option { return func(c *config) { c.trust = true } }

// NoLogIDs leaves trace_id and span_id out of the log lines of a traced
// request, which carry them by default.
func NoLogIDs() Option { return func(c *config) { c.logIDs = false } }

// LifecycleSpans makes each hook and the handler of a traced request a
// span of its own, a child of the request's, named after the hook's kind
// and function ("onRequest authHook", "handler (*Todos).Get"); and each
// request value's constructor and cleanup too ("requestValue *sql.Tx",
// "cleanup *sql.Tx", with burrow.request.failed telling a rollback from
// a commit). Off by default: a span per step costs as much as the
// request's own.
func LifecycleSpans() Option { return func(c *config) { c.steps = true } }

// Skip leaves the requests fn reports true for untraced and unmeasured
// (@fastify/otel's ignorePaths): health checks, the metrics scrape. fn
// is called when a request starts and when it ends, with the same route,
// context and method: decide on those, or on the path.
func Skip(fn func(app.Observation) bool) Option { return func(c *config) { c.skip = fn } }
