package otel

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// PluginName is the name the plugin registers under.
const PluginName = "burrow-otel"

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/burrow-go/burrow/plugins/otel"

// ContextKey is the attribute naming the Burrow context that answered.
const ContextKey = attribute.Key("burrow.context")

// durationBuckets are the semantic conventions' advised boundaries of
// http.server.request.duration, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// spanKey finds the plugin's span in a request's context, whatever spans
// middleware started below it.
type spanKey struct{}

type tracing struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	trust      bool
	duration   metric.Float64Histogram
	skip       func(app.Observation) bool
}

// Plugin returns the wrapped tracing plugin: it traces the requests of
// the context it is registered in and of its descendants.
func Plugin(opts ...Option) *app.Plugin {
	c := newConfig(opts)
	t := &tracing{
		tracer:     c.tracerProvider.Tracer(ScopeName),
		propagator: c.propagator,
		trust:      c.trust,
		skip:       c.skip,
	}
	var err error
	t.duration, err = c.meterProvider.Meter(ScopeName).Float64Histogram("http.server.request.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of HTTP server requests."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	return app.Wrap(func(s *app.Server) error {
		if err != nil {
			return err
		}
		o := app.Observer{Start: t.start, End: t.end}
		if c.logIDs {
			o.LogFields = logFields
		}
		if c.steps {
			o.Step = t.step
		}
		if err := s.Observe(o); err != nil {
			return err
		}
		return s.AddHook(app.OnError, recordError)
	}, app.Name(PluginName), app.Supports("0.x"))
}

// start starts the request's SERVER span: a child of the trace context
// its headers carry when trusted, else a new trace linked to it.
func (t *tracing) start(o app.Observation) context.Context {
	if t.skip != nil && t.skip(o) {
		return nil
	}
	r := o.Request
	ctx := r.Context()
	startOpts := make([]trace.SpanStartOption, 0, 3)
	if t.trust {
		ctx = t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
	} else if remote := trace.SpanContextFromContext(t.propagator.Extract(context.Background(), propagation.HeaderCarrier(r.Header))); remote.IsValid() {
		// The client's trace stays findable, but chooses neither this
		// trace's id nor whether it is sampled.
		startOpts = append(startOpts, trace.WithLinks(trace.Link{SpanContext: remote}))
	}
	method, original := methodOf(r.Method)
	name := method
	if o.Route != "" {
		name = method + " " + o.Route
	}
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(method))
	if original {
		attrs = append(attrs, semconv.HTTPRequestMethodOriginal(r.Method))
	}
	if o.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(o.Route))
	}
	attrs = append(attrs, ContextKey.String(o.Context), semconv.URLPath(r.URL.Path), semconv.URLScheme(scheme(r)))
	if host, port := hostPort(r.Host); host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
		if port > 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
	}
	if host, _ := hostPort(r.RemoteAddr); host != "" {
		attrs = append(attrs, semconv.ClientAddress(host))
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	if v := protocolVersion(r); v != "" {
		attrs = append(attrs, semconv.NetworkProtocolVersion(v))
	}
	startOpts = append(startOpts, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	ctx, span := t.tracer.Start(ctx, name, startOpts...)
	return context.WithValue(ctx, spanKey{}, span)
}

// end ends the request's span with its status, and records its duration.
func (t *tracing) end(o app.Observation) {
	if t.skip != nil && t.skip(o) {
		return
	}
	method, _ := methodOf(o.Request.Method)
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(method),
		semconv.HTTPResponseStatusCode(o.Status),
		semconv.URLScheme(scheme(o.Request)),
		ContextKey.String(o.Context),
	}
	if o.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(o.Route))
	}
	if o.Status >= 500 {
		attrs = append(attrs, semconv.ErrorTypeKey.String(strconv.Itoa(o.Status)))
	}
	t.duration.Record(o.Request.Context(), o.Duration.Seconds(), metric.WithAttributes(attrs...))
	span, ok := o.Request.Context().Value(spanKey{}).(trace.Span)
	if !ok {
		return // a middleware replaced the request's context by one not derived from it
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(o.Status))
	if o.Status >= 500 {
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(o.Status)))
		span.SetStatus(codes.Error, http.StatusText(o.Status))
	}
	span.End()
}

// recordError, an onError hook, records err on the request's span: the
// error the error handler is about to answer.
func recordError(req *httpx.Request, err error) {
	span, ok := req.Context().Value(spanKey{}).(trace.Span)
	if !ok {
		return
	}
	span.RecordError(err)
	if httpx.BodyOf(err).StatusCode >= 500 { // a 4xx is the client's error, not the server's
		span.SetStatus(codes.Error, err.Error())
	}
}

// logFields are the trace and span ids of the span ctx carries.
func logFields(ctx context.Context) []zap.Field {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []zap.Field{zap.String("trace_id", sc.TraceID().String()), zap.String("span_id", sc.SpanID().String())}
}

// methodOf is method when it is a standard one, else "_OTHER" and true:
// the semantic conventions' answer to a client's made-up methods.
func methodOf(method string) (string, bool) {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method, false
	}
	return "_OTHER", true
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// hostPort splits a host[:port]; port is 0 when absent or invalid.
func hostPort(hp string) (string, int) {
	host, p, err := net.SplitHostPort(hp)
	if err != nil {
		return hp, 0
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return host, 0
	}
	return host, port
}

func protocolVersion(r *http.Request) string {
	switch r.ProtoMajor {
	case 1:
		return "1." + strconv.Itoa(r.ProtoMinor)
	case 2:
		return "2"
	case 3:
		return "3"
	}
	return ""
}

// Attributes of a lifecycle span: the step's kind and function (or
// request value), and on a request value's cleanup whether it was told
// the request failed (a rollback rather than a commit).
const (
	StepKindKey      = attribute.Key("burrow.step.kind")
	StepNameKey      = attribute.Key("burrow.step.name")
	RequestFailedKey = attribute.Key("burrow.request.failed")
)

// step starts the span of one hook, the handler, or a request value's
// constructor or cleanup.
func (t *tracing) step(ctx context.Context, st app.Step) (context.Context, func(error)) {
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, StepKindKey.String(st.Kind), StepNameKey.String(st.Name))
	if st.Kind == "cleanup" {
		attrs = append(attrs, RequestFailedKey.Bool(st.Failed))
	}
	ctx, span := t.tracer.Start(ctx, st.Kind+" "+st.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			if httpx.BodyOf(err).StatusCode >= 500 {
				span.SetStatus(codes.Error, err.Error())
			}
		}
		span.End()
	}
}
