package otel_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// traced is a tracer provider recording every ended span.
// spanNames are the names of spans, in their order.
func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	names := make([]string, 0, len(spans))
	for _, sp := range spans {
		names = append(names, sp.Name())
	}
	return names
}

func traced(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

func options(tp trace.TracerProvider, more ...otel.Option) []otel.Option {
	return append([]otel.Option{
		otel.TracerProvider(tp),
		otel.Propagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
	}, more...)
}

func inject(t *testing.T, s *app.Server, method, target string, hdr ...string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := s.Inject(r)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// server has a route at the root, an api context (prefixed, with a
// not-found handler) and a sibling, with the plugin in the root or in
// api only.
func server(t *testing.T, tp trace.TracerProvider, inAPI bool, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	if !inAPI {
		require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
	}
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) {
		req.Log().Info("handler")
		return trace.SpanContextFromContext(req.Context()).SpanID().String(), nil
	})
	s.Register(func(api *app.Server) error {
		if inAPI {
			api.Register(otel.Plugin(options(tp)...))
		}
		api.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("no") })
		api.Get("/boom", func() error { return errors.New("db down") })
		api.Get("/bad", func() error { return httpx.NewError(422, "BAD", "bad input") })
		return api.Get("/items/:id", func() (string, error) { return "item", nil })
	}, app.Prefix("/api"), app.Name("api"))
	s.Register(func(other *app.Server) error {
		return other.Get("/other", func() (string, error) { return "other", nil })
	}, app.Name("other"))
	require.NoError(t, s.Ready())
	return s
}

func TestServerSpanPerRequest(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := server(t, tp, false)
	status, body := inject(t, s, "GET", "/todos/7", "User-Agent", "test/1")
	require.Equal(t, 200, status)
	spans := rec.Ended()
	require.Len(t, spans, 1)
	sp := spans[0]
	assert.Equal(t, "GET /todos/{id}", sp.Name())
	assert.Equal(t, trace.SpanKindServer, sp.SpanKind())
	assert.Equal(t, body, sp.SpanContext().SpanID().String(), "the handler's context carries the span")
	a := attrs(sp)
	assert.Equal(t, "/todos/{id}", a["http.route"].AsString())
	assert.Equal(t, "GET", a["http.request.method"].AsString())
	assert.Equal(t, int64(200), a["http.response.status_code"].AsInt64())
	assert.Equal(t, "root", a["burrow.context"].AsString())
	assert.Equal(t, "/todos/7", a["url.path"].AsString())
	assert.Equal(t, "http", a["url.scheme"].AsString())
	assert.Equal(t, "test/1", a["user_agent.original"].AsString())
	assert.Equal(t, codes.Unset, sp.Status().Code)
}

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
)

// trusting is a server whose plugin trusts the incoming trace context.
func trusting(t *testing.T, tp trace.TracerProvider, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.TrustIncoming())...)))
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) {
		req.Log().Info("handler")
		return baggage.FromContext(req.Context()).Member("tenant").Value(), nil
	})
	require.NoError(t, s.Ready())
	return s
}

// By default a client chooses neither the trace nor its sampling: each
// request starts a sampled trace of its own, linked to the client's
// span, and the client's baggage is dropped.
func TestClientTraceContextIsNotTrusted(t *testing.T) {
	t.Parallel()
	for _, flags := range []string{"00", "01"} {
		t.Run("flags "+flags, func(t *testing.T) {
			t.Parallel()
			tp, rec := traced(t)
			s := app.New()
			require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
			s.Get("/b", func(req *httpx.Request) (string, error) {
				return baggage.FromContext(req.Context()).Member("tenant").Value(), nil
			})
			require.NoError(t, s.Ready())
			status, body := inject(t, s, "GET", "/b",
				"Traceparent", "00-"+clientTrace+"-"+clientSpan+"-"+flags, "Baggage", "tenant=acme")
			assert.Equal(t, 200, status)
			assert.Empty(t, body, "the client's baggage is not the server's")
			spans := rec.Ended()
			require.Len(t, spans, 1, "an unsampled traceparent does not hide the request")
			sp := spans[0]
			assert.NotEqual(t, clientTrace, sp.SpanContext().TraceID().String())
			assert.False(t, sp.Parent().IsValid(), "a new trace")
			assert.True(t, sp.SpanContext().IsSampled())
			require.Len(t, sp.Links(), 1)
			assert.Equal(t, clientTrace, sp.Links()[0].SpanContext.TraceID().String())
			assert.Equal(t, clientSpan, sp.Links()[0].SpanContext.SpanID().String())
		})
	}

	tp, rec := traced(t)
	s := server(t, tp, false)
	inject(t, s, "GET", "/todos/1")
	require.Len(t, rec.Ended(), 1)
	assert.Empty(t, rec.Ended()[0].Links(), "no traceparent, no link")
}

// TrustIncoming continues the caller's trace: its id, its sampling
// decision and its baggage (W3C trace context and baggage).
func TestTrustIncomingContinuesTheTrace(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := trusting(t, tp)
	_, body := inject(t, s, "GET", "/todos/1", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01", "baggage", "tenant=acme")
	assert.Equal(t, "acme", body)
	spans := rec.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, clientTrace, spans[0].SpanContext().TraceID().String())
	assert.Equal(t, clientSpan, spans[0].Parent().SpanID().String())
	assert.True(t, spans[0].Parent().IsRemote())
	assert.Empty(t, spans[0].Links())

	inject(t, s, "GET", "/todos/1", "traceparent", "00-zz-not-a-traceparent-01")
	spans = rec.Ended()
	require.Len(t, spans, 2)
	assert.False(t, spans[1].Parent().IsValid(), "a malformed traceparent starts a new trace")

	inject(t, s, "GET", "/todos/1", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-00")
	assert.Len(t, rec.Ended(), 2, "the caller's decision not to sample is followed")
}

// TestUnmatchedSpans: a 404 and a 405 are spans named after the method,
// owned by the context answering them; a made-up method is _OTHER.
func TestUnmatchedSpans(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := server(t, tp, false)
	for _, c := range []struct {
		method, target, name, context string
		status                        int
	}{
		{"GET", "/nowhere", "GET", "root", 404},
		{"GET", "/api/nowhere", "GET", "root > api", 404},
		{"DELETE", "/api/items/1", "DELETE", "root > api", 405},
		{"BREW", "/todos/1", "_OTHER", "root", 405},
	} {
		status, _ := inject(t, s, c.method, c.target)
		require.Equal(t, c.status, status)
		spans := rec.Ended()
		sp := spans[len(spans)-1]
		assert.Equal(t, c.name, sp.Name(), c.target)
		a := attrs(sp)
		assert.Equal(t, c.context, a["burrow.context"].AsString(), c.target)
		assert.Equal(t, int64(c.status), a["http.response.status_code"].AsInt64(), c.target)
		assert.NotContains(t, a, attribute.Key("http.route"), c.target)
		if c.method == "BREW" {
			assert.Equal(t, "BREW", a["http.request.method_original"].AsString())
		}
	}
}

// TestScopedToItsContext: registered in api, the plugin traces api's
// requests only; the root's and the sibling's are not.
func TestScopedToItsContext(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := server(t, tp, true)
	for _, target := range []string{"/todos/1", "/other", "/nowhere", "/api/items/1", "/api/nope"} {
		inject(t, s, "GET", target)
	}
	assert.Equal(t, []string{"GET /api/items/{id}", "GET"}, spanNames(rec.Ended()))
}

// TestErrorsRecorded: the error the error handler answers is an
// exception event; a 5xx sets the span's status, a 4xx does not.
func TestErrorsRecorded(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := server(t, tp, false)
	status, _ := inject(t, s, "GET", "/api/boom")
	require.Equal(t, 500, status)
	status, _ = inject(t, s, "GET", "/api/bad")
	require.Equal(t, 422, status)
	spans := rec.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, codes.Error, spans[0].Status().Code)
	require.Len(t, spans[0].Events(), 1)
	assert.Equal(t, "exception", spans[0].Events()[0].Name)
	assert.Equal(t, "500", attrs(spans[0])["error.type"].AsString())
	assert.Equal(t, codes.Unset, spans[1].Status().Code)
	assert.Len(t, spans[1].Events(), 1, "the refusal is recorded all the same")
}

// TestTraceIDsInEveryLogLine: the access log's lines and the handler's
// carry the span's ids.
func TestTraceIDsInEveryLogLine(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	core, logs := observer.New(zapcore.InfoLevel)
	s := server(t, tp, false, app.WithLogger(zap.New(core)))
	logs.TakeAll()
	inject(t, s, "GET", "/todos/1", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01")
	sp := rec.Ended()[0]
	entries := logs.All()
	require.Len(t, entries, 3)
	for _, e := range entries {
		assert.Equal(t, sp.SpanContext().TraceID().String(), e.ContextMap()["trace_id"], e.Message)
		assert.NotEqual(t, clientTrace, e.ContextMap()["trace_id"], "a client cannot name the ids in the logs")
		assert.Equal(t, sp.SpanContext().SpanID().String(), e.ContextMap()["span_id"], e.Message)
	}

	tp, rec = traced(t)
	core, logs = observer.New(zapcore.InfoLevel)
	s = trusting(t, tp, app.WithLogger(zap.New(core)))
	logs.TakeAll()
	inject(t, s, "GET", "/todos/1", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01")
	sp = rec.Ended()[0]
	entries = logs.All()
	require.Len(t, entries, 3)
	for _, e := range entries {
		assert.Equal(t, clientTrace, e.ContextMap()["trace_id"], e.Message)
		assert.Equal(t, sp.SpanContext().SpanID().String(), e.ContextMap()["span_id"], e.Message)
	}
}

// TestDurationMetric: http.server.request.duration, by route.
func TestDurationMetric(t *testing.T) {
	t.Parallel()
	tp, _ := traced(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.MeterProvider(mp))...)))
	s.Get("/todos/:id", func() (string, error) { return "x", nil })
	require.NoError(t, s.Ready())
	inject(t, s, "GET", "/todos/1")
	inject(t, s, "GET", "/todos/2")
	inject(t, s, "GET", "/unknown/3")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	m := rm.ScopeMetrics[0].Metrics[0]
	assert.Equal(t, "http.server.request.duration", m.Name)
	assert.Equal(t, "s", m.Unit)
	counts := map[string]uint64{}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		route, _ := dp.Attributes.Value("http.route")
		status, _ := dp.Attributes.Value("http.response.status_code")
		counts[route.AsString()+" "+status.String()] = dp.Count
	}
	assert.Equal(t, map[string]uint64{"/todos/{id} 200": 2, " 404": 1}, counts)
}

// TestMiddlewareSpansBelow: a span a middleware starts is the handler's
// parent's child; the plugin's span is still the one ended with the
// status.
func TestMiddlewareSpansBelow(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
	tracer := tp.Tracer("mw")
	s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, span := tracer.Start(r.Context(), "middleware")
			defer span.End()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	})
	s.Get("/x", func() error { return httpx.NewError(503, "DOWN", "down") })
	require.NoError(t, s.Ready())
	status, _ := inject(t, s, "GET", "/x")
	require.Equal(t, 503, status)
	spans := rec.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "middleware", spans[0].Name())
	assert.Equal(t, "GET /x", spans[1].Name())
	assert.Equal(t, spans[1].SpanContext().SpanID(), spans[0].Parent().SpanID())
	assert.Equal(t, codes.Error, spans[1].Status().Code)
	assert.Equal(t, int64(503), attrs(spans[1])["http.response.status_code"].AsInt64())
}

func authHook(req *httpx.Request) error {
	if req.Header("X-Deny") != "" {
		return httpx.NewError(401, "NO", "no")
	}
	return nil
}

// TestLifecycleSpans: each hook and the handler is a child span of the
// request's, in order; a refusing hook's span records the error.
func TestLifecycleSpans(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.LifecycleSpans())...)))
	s.AddHook(app.OnRequest, authHook)
	s.Get("/x", func(req *httpx.Request) (string, error) {
		return trace.SpanFromContext(req.Context()).(sdktrace.ReadOnlySpan).Name(), nil
	})
	require.NoError(t, s.Ready())
	status, body := inject(t, s, "GET", "/x")
	require.Equal(t, 200, status)
	assert.Equal(t, "handler anonymous", body, "the handler runs in its span")
	spans := rec.Ended()
	require.Len(t, spans, 3)
	req := spans[2]
	assert.Equal(t, "GET /x", req.Name())
	for i, name := range []string{"onRequest authHook", "handler anonymous"} {
		assert.Equal(t, name, spans[i].Name())
		assert.Equal(t, req.SpanContext().SpanID(), spans[i].Parent().SpanID(), name)
		assert.Equal(t, trace.SpanKindInternal, spans[i].SpanKind())
	}

	status, _ = inject(t, s, "GET", "/x", "X-Deny", "1")
	require.Equal(t, 401, status)
	spans = rec.Ended()[3:]
	assert.Equal(t, []string{"onRequest authHook", "onError recordError", "GET /x"}, spanNames(spans))
	assert.Len(t, spans[0].Events(), 1, "the refusal is recorded on the hook's span")
}

// TestSkip: a skipped request has no span, and its log lines no ids.
func TestSkip(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.Skip(func(o app.Observation) bool { return o.Route == "/healthz" }))...)))
	s.Get("/healthz", func(req *httpx.Request) (string, error) {
		return trace.SpanContextFromContext(req.Context()).TraceID().String(), nil
	})
	require.NoError(t, s.Ready())
	_, body := inject(t, s, "GET", "/healthz")
	assert.Equal(t, trace.TraceID{}.String(), body)
	inject(t, s, "GET", "/other")
	assert.Equal(t, []string{"GET"}, spanNames(rec.Ended()))
}
