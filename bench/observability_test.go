package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	noopmetric "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/otel"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

// The reference example's GET /three, bare and observed, on Burrow and
// on chi. Observed is what a service runs in production: a sampled
// SERVER span per request named after the route, batched to an exporter
// (here one that discards what it gets), and Prometheus' request count,
// duration histogram (classic and native buckets) and in-flight gauge
// labelled by route, with the trace id as exemplar. On Burrow these are
// plugins/otel and plugins/prometheus; on chi, otelhttp and promhttp's
// instrumentation, with the span renamed and the route label read from
// chi's pattern once routed, as chi services do. OTel's own metrics are
// off on both (a no-op meter provider): Prometheus measures.

// threeAnswer is /three's answer.
type threeAnswer struct {
	Answer int    `json:"answer"`
	Foo    string `json:"foo,omitempty"`
	Bar    string `json:"bar,omitempty"`
}

// threeIn is what /three's handler takes on Burrow: a decorator of each
// of its three contexts, as in example/.
type threeIn struct {
	app.In
	Answer int    `name:"answer"`
	Foo    string `name:"foo"`
	Bar    string `name:"bar"`
}

// discardSpans is an exporter that keeps nothing but a count, and the
// last span's name and route.
type discardSpans struct {
	mu          sync.Mutex
	n           int
	name, route string
}

func (e *discardSpans) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n += len(spans)
	for _, sp := range spans {
		e.name = sp.Name()
		for _, a := range sp.Attributes() {
			if a.Key == "http.route" {
				e.route = a.Value.AsString()
			}
		}
	}
	return nil
}

func (e *discardSpans) Shutdown(context.Context) error { return nil }

// observed is what an observed variant records into.
type observed struct {
	tp       *sdktrace.TracerProvider
	spans    *discardSpans
	registry *prom.Registry
	counter  string // the request counter's name
}

// newObserved is a tracer provider sampling every request and batching
// its spans to a discarding exporter; closed when tb ends.
func newObserved(tb testing.TB) *observed {
	e := &discardSpans{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(e))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &observed{tp: tp, spans: e}
}

// burrowThree is /three on Burrow as example/ builds it, observed by
// the otel and prometheus plugins at the root when o is not nil.
func burrowThree(tb testing.TB, o *observed) http.Handler {
	s := app.New(app.WithoutRequestLogging())
	if o != nil {
		m := prometheus.New()
		o.registry, o.counter = m.Registry(), "http_server_requests_total"
		require.NoError(tb, s.Register(otel.Plugin(otel.TracerProvider(o.tp),
			otel.MeterProvider(noopmetric.NewMeterProvider()), otel.Propagator(propagation.TraceContext{}))))
		require.NoError(tb, s.Register(m.Plugin()))
	}
	s.DecorateRequest("answer", 42)
	s.Register(func(s *app.Server) error {
		s.DecorateRequest("foo", "foo")
		return s.Register(func(s *app.Server) error {
			s.DecorateRequest("bar", "bar")
			return app.Get(s, "/three", func(_ context.Context, in threeIn) (threeAnswer, error) {
				return threeAnswer{Answer: in.Answer, Foo: in.Foo, Bar: in.Bar}, nil
			})
		}, app.Name("grandchildContext"))
	}, app.Name("publicContext"))
	require.NoError(tb, s.Ready())
	return s
}

// chiThree is /three on chi, observed by otelhttp and promhttp's
// instrumentation when o is not nil.
func chiThree(tb testing.TB, o *observed) http.Handler {
	r := chi.NewRouter()
	if o != nil {
		o.registry, o.counter = prom.NewRegistry(), "http_requests_total"
		for _, mw := range chiObservers(tb, o) {
			r.Use(mw)
		}
	}
	r.Get("/three", func(w http.ResponseWriter, _ *http.Request) {
		b, err := json.Marshal(threeAnswer{Answer: 42, Foo: "foo", Bar: "bar"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(b)
	})
	return r
}

// chiObservers are the middleware of an observed chi router, outermost
// first: otelhttp's span (outermost, so that the metrics find it for
// their exemplars), Prometheus' in-flight gauge, counter and histogram
// (the route label read once chi has routed), and the renaming of the
// span after the route.
func chiObservers(tb testing.TB, o *observed) []func(http.Handler) http.Handler {
	route := func(ctx context.Context) string { return chi.RouteContext(ctx).RoutePattern() }
	exemplar := func(ctx context.Context) prom.Labels {
		if sc := trace.SpanContextFromContext(ctx); sc.IsSampled() {
			return prom.Labels{"trace_id": sc.TraceID().String()}
		}
		return nil
	}
	requests := prom.NewCounterVec(prom.CounterOpts{Name: "http_requests_total", Help: "Requests served."},
		[]string{"code", "method", "route"})
	duration := prom.NewHistogramVec(prom.HistogramOpts{Name: "http_request_duration_seconds", Help: "Time to serve a request.",
		Buckets: prometheus.DefaultBuckets, NativeHistogramBucketFactor: 1.1}, []string{"code", "method", "route"})
	inFlight := prom.NewGauge(prom.GaugeOpts{Name: "http_requests_in_flight", Help: "Requests being served."})
	require.NoError(tb, o.registry.Register(requests))
	require.NoError(tb, o.registry.Register(duration))
	require.NoError(tb, o.registry.Register(inFlight))
	opts := []promhttp.Option{promhttp.WithLabelFromCtx("route", route), promhttp.WithExemplarFromContext(exemplar)}
	return []func(http.Handler) http.Handler{
		otelhttp.NewMiddleware("http.server", otelhttp.WithTracerProvider(o.tp),
			otelhttp.WithMeterProvider(noopmetric.NewMeterProvider()), otelhttp.WithPropagators(propagation.TraceContext{})),
		func(next http.Handler) http.Handler { return promhttp.InstrumentHandlerInFlight(inFlight, next) },
		func(next http.Handler) http.Handler {
			return promhttp.InstrumentHandlerCounter(requests, next, opts...)
		},
		func(next http.Handler) http.Handler {
			return promhttp.InstrumentHandlerDuration(duration, next, opts...)
		},
		func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(w, r)
				p := route(r.Context())
				span := trace.SpanFromContext(r.Context())
				span.SetName(r.Method + " " + p)
				span.SetAttributes(attribute.String("http.route", p))
			})
		},
	}
}

// counted sums the samples of the counter name in reg, and says whether
// each has an exemplar with a trace id.
func counted(t *testing.T, reg *prom.Registry, name string) (n float64, exemplars bool) {
	families, err := reg.Gather()
	require.NoError(t, err)
	exemplars = true
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			n += m.GetCounter().GetValue()
			traced := false
			for _, l := range m.GetCounter().GetExemplar().GetLabel() {
				traced = traced || l.GetName() == "trace_id" && len(l.GetValue()) == 32
			}
			exemplars = exemplars && traced
		}
	}
	return n, exemplars
}

// TestObservedThreeRecords: the four variants answer alike, and each
// observed one records what the benchmark says it does: a span per
// request named after the route, with http.route, and a count of it
// whose exemplar is the trace id.
func TestObservedThreeRecords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		build func(testing.TB, *observed) http.Handler
		obs   bool
	}{
		{"burrow", burrowThree, false},
		{"burrow-otel-prometheus", burrowThree, true},
		{"chi", chiThree, false},
		{"chi-otelhttp-promhttp", chiThree, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var o *observed
			if tc.obs {
				o = newObserved(t)
			}
			h := tc.build(t, o)
			const requests = 3
			for range requests {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", "/three", nil))
				require.Equal(t, http.StatusOK, w.Code)
				assert.JSONEq(t, `{"answer":42,"foo":"foo","bar":"bar"}`, w.Body.String())
			}
			if o == nil {
				return
			}
			require.NoError(t, o.tp.ForceFlush(t.Context()))
			o.spans.mu.Lock()
			assert.Equal(t, requests, o.spans.n, "a span per request")
			assert.Equal(t, "GET /three", o.spans.name)
			assert.Equal(t, "/three", o.spans.route)
			o.spans.mu.Unlock()
			n, exemplars := counted(t, o.registry, o.counter)
			assert.Equal(t, float64(requests), n, "a count per request")
			assert.True(t, exemplars, "the count's exemplar has the trace id")
		})
	}
}

func benchThree(b *testing.B, h http.Handler) {
	req := httptest.NewRequest("GET", "/three", nil)
	w := &recorder{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
	if w.status != http.StatusOK {
		b.Fatalf("status %d: %s", w.status, w.body)
	}
}

// BenchmarkObservedThree is GET /three bare and observed, on Burrow and
// on chi, side by side.
func BenchmarkObservedThree(b *testing.B) {
	b.Run("burrow", func(b *testing.B) { benchThree(b, burrowThree(b, nil)) })
	b.Run("burrow-otel-prometheus", func(b *testing.B) { benchThree(b, burrowThree(b, newObserved(b))) })
	b.Run("chi", func(b *testing.B) { benchThree(b, chiThree(b, nil)) })
	b.Run("chi-otelhttp-promhttp", func(b *testing.B) { benchThree(b, chiThree(b, newObserved(b))) })
}
