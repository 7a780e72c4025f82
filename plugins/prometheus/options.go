package prometheus

import (
	"context"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
)

// Option configures New.
type Option func(*config)

type config struct {
	registry      *prom.Registry
	buckets       []float64
	nativeFactor  float64
	runtime       bool
	exemplar      func(context.Context) prom.Labels
	unmatched     string
	notAllowed    string
	constLabels   prom.Labels
	maxNativeBkts uint32
	skip          func(app.Observation) bool
	groupStatus   bool
}

// DefaultBuckets are the classic buckets of the duration histogram, in
// seconds: those of OpenTelemetry's http.server.request.duration.
var DefaultBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

func newConfig(opts []Option) config {
	c := config{
		buckets:       DefaultBuckets,
		nativeFactor:  1.1,
		maxNativeBkts: 160,
		runtime:       true,
		exemplar:      traceExemplar,
		unmatched:     "unmatched",
		notAllowed:    "method_not_allowed",
	}
	for _, o := range opts {
		o(&c)
	}
	if c.registry == nil {
		c.registry = prom.NewRegistry()
	}
	return c
}

// Registry makes the metrics register in r (default: a new registry of
// their own, never prometheus.DefaultRegisterer). New panics, as
// prometheus.MustRegister does, when r already has metrics of these
// names.
func Registry(r *prom.Registry) Option { return func(c *config) { c.registry = r } }

// Buckets sets the duration histogram's classic buckets, in seconds
// (default DefaultBuckets); none leaves only the native ones (or, with
// NativeBuckets off, client_golang's default buckets).
func Buckets(b ...float64) Option { return func(c *config) { c.buckets = b } }

// NativeBuckets sets the growth factor of the duration histogram's native
// buckets (default 1.1: each bucket at most 10% wider than the one
// below); 0 or less turns them off.
func NativeBuckets(factor float64) Option {
	return func(c *config) { c.nativeFactor = max(factor, 0) }
}

// NoRuntimeMetrics leaves the Go runtime and process collectors out of
// the registry, which has them by default: for a registry shared with
// code that registers them.
func NoRuntimeMetrics() Option { return func(c *config) { c.runtime = false } }

// Exemplar sets how a request's exemplar labels are found from its
// context (default: the trace_id of a sampled OpenTelemetry span); nil
// turns exemplars off. A nil or empty result adds none.
func Exemplar(fn func(context.Context) prom.Labels) Option {
	return func(c *config) { c.exemplar = fn }
}

// Unmatched sets the route label of requests no route matched (default
// "unmatched") and of 405s (default "method_not_allowed").
func Unmatched(noRoute, notAllowed string) Option {
	return func(c *config) { c.unmatched, c.notAllowed = noRoute, notAllowed }
}

// ConstLabels adds labels of fixed values to every request metric (a
// service name, an instance's role).
func ConstLabels(l prom.Labels) Option { return func(c *config) { c.constLabels = l } }

// traceExemplar is the trace_id of the sampled span ctx carries, if any.
func traceExemplar(ctx context.Context) prom.Labels {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsSampled() {
		return nil
	}
	return prom.Labels{"trace_id": sc.TraceID().String()}
}

// nativeMinReset is how often the native histogram may reset its buckets
// to stay under its bucket count.
const nativeMinReset = time.Hour

// Skip leaves out the requests fn reports true for: the scrape route,
// health checks, a method (fastify-metrics' route and method
// blacklists). fn is called when a request starts and when it ends, with
// the same route, context and method: decide on those (or on the path),
// so that the in-flight gauge counts each request in and out.
func Skip(fn func(app.Observation) bool) Option { return func(c *config) { c.skip = fn } }

// GroupStatusCodes makes the status label the status class ("2xx",
// "4xx", …) instead of the code, which divides the series by up to ten.
func GroupStatusCodes() Option { return func(c *config) { c.groupStatus = true } }
