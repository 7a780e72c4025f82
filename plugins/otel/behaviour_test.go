package otel_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// listen serves s on a real listener until t ends.
func listen(t *testing.T, s *app.Server) string {
	t.Helper()
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// send makes a request with headers hdr (name, value...) and returns its
// status.
func send(t *testing.T, method, url string, hdr ...string) int {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// Route patterns with parameters, in nested prefixed contexts and with a
// trailing wildcard, name the span and http.route; burrow.context is the
// nested context's path.
func TestRoutePatternsNameSpans(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
	ok := func() (string, error) { return "ok", nil }
	s.Get("/users/:id", ok)
	s.Register(func(v1 *app.Server) error {
		v1.Register(func(users *app.Server) error {
			users.Get("/:id/posts/:post", ok)
			return users.Get("/files/*", ok)
		}, app.Prefix("/users"), app.Name("users"))
		return nil
	}, app.Prefix("/api/v1"), app.Name("v1"))
	url := listen(t, s)
	for _, c := range []struct{ target, route, context string }{
		{"/users/42", "/users/{id}", "root"},
		{"/api/v1/users/7/posts/9", "/api/v1/users/{id}/posts/{post}", "root > v1 > users"},
		{"/api/v1/users/files/a/b.txt", "/api/v1/users/files/{*...}", "root > v1 > users"},
	} {
		require.Equal(t, 200, send(t, "GET", url+c.target), c.target)
		spans := rec.Ended()
		sp := spans[len(spans)-1]
		assert.Equal(t, "GET "+c.route, sp.Name(), c.target)
		assert.Equal(t, c.route, attrs(sp)["http.route"].AsString(), c.target)
		assert.Equal(t, c.context, attrs(sp)[otel.ContextKey].AsString(), c.target)
		assert.Equal(t, c.target, attrs(sp)["url.path"].AsString(), c.target)
	}
}

// Ignored paths (health checks, a docs tree, unknown paths under a
// prefix) have no span and no duration point; the others have both.
func TestSkipIgnoresPathsAndMetrics(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	skip := func(o app.Observation) bool {
		p := o.Request.URL.Path
		return p == "/healthz" || p == "/docs" || len(p) > 6 && p[:6] == "/docs/"
	}
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.MeterProvider(mp), otel.Skip(skip))...)))
	ok := func() (string, error) { return "ok", nil }
	s.Get("/healthz", ok)
	s.Get("/docs", ok)
	s.Get("/docs/*", ok)
	s.Get("/docsearch", ok)
	url := listen(t, s)
	for _, c := range []struct {
		target string
		traced bool
	}{
		{"/healthz", false},
		{"/docs", false},
		{"/docs/openapi.json", false},
		{"/docs/missing/deeper", false},
		{"/docsearch", true},
		{"/healthz/extra", true}, // unmatched, not the ignored path
	} {
		before := len(rec.Ended())
		send(t, "GET", url+c.target)
		assert.Equal(t, c.traced, len(rec.Ended()) > before, c.target)
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var points uint64
	for _, dp := range rm.ScopeMetrics[0].Metrics[0].Data.(metricdata.Histogram[float64]).DataPoints {
		points += dp.Count
	}
	assert.Equal(t, uint64(2), points, "only the traced requests are measured")
}

// Incoming trace context, trusted: a valid traceparent is the parent and
// its tracestate is kept; malformed or invalid ones (zero ids, version
// ff, wrong lengths, upper case hex) start a new trace.
func TestIncomingTraceparentEdgeCases(t *testing.T) {
	t.Parallel()
	const (
		tid = "4bf92f3577b34da6a3ce929d0e0e4736"
		sid = "00f067aa0ba902b7"
	)
	for _, c := range []struct {
		name, traceparent, tracestate string
		continued                     bool
	}{
		{"valid", "00-" + tid + "-" + sid + "-01", "", true},
		{"valid with tracestate", "00-" + tid + "-" + sid + "-01", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", true},
		{"future version, extra field", "cc-" + tid + "-" + sid + "-01-what-the-future-holds", "", true},
		{"zero trace id", "00-00000000000000000000000000000000-" + sid + "-01", "", false},
		{"zero span id", "00-" + tid + "-0000000000000000-01", "", false},
		{"version ff", "ff-" + tid + "-" + sid + "-01", "", false},
		{"short trace id", "00-" + tid[:30] + "-" + sid + "-01", "", false},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-" + sid + "-01", "", false},
		{"garbage", "not a traceparent", "", false},
		{"version 00 with extra field", "00-" + tid + "-" + sid + "-01-extra", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp, rec := traced(t)
			s := app.New()
			require.NoError(t, s.Register(otel.Plugin(options(tp, otel.TrustIncoming())...)))
			s.Get("/x", func() (string, error) { return "ok", nil })
			hdr := []string{"traceparent", c.traceparent}
			if c.tracestate != "" {
				hdr = append(hdr, "tracestate", c.tracestate)
			}
			require.Equal(t, 200, send(t, "GET", listen(t, s)+"/x", hdr...))
			require.Len(t, rec.Ended(), 1)
			sp := rec.Ended()[0]
			assert.Equal(t, c.continued, sp.Parent().IsValid())
			if c.continued {
				assert.Equal(t, tid, sp.SpanContext().TraceID().String())
				assert.Equal(t, sid, sp.Parent().SpanID().String())
				assert.Equal(t, c.tracestate, sp.SpanContext().TraceState().String(), "tracestate is kept")
			} else {
				assert.NotEqual(t, tid, sp.SpanContext().TraceID().String())
			}
		})
	}
}

func failingHook() error { return errors.New("cache down") }

// Errors in hooks and panics in handlers: the failing step's span records
// the error with status Error, the steps after it do not run, and the
// request's span ends with the 500 and status Error.
func TestLifecycleErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		setup  func(s *app.Server)
		spans  []string
		failed string // the span with the error
	}{
		{"preHandler hook fails", func(s *app.Server) {
			s.AddHook(app.PreHandler, failingHook)
			s.Get("/x", func() (string, error) { return "ok", nil })
		}, []string{"preHandler failingHook", "onError recordError", "GET /x"}, "preHandler failingHook"},
		{"handler fails", func(s *app.Server) {
			s.Get("/x", func() (string, error) { return "", errors.New("db down") })
		}, []string{"handler anonymous", "onError recordError", "GET /x"}, "handler anonymous"},
		{"handler panics", func(s *app.Server) {
			s.Get("/x", func() (string, error) { panic("boom") })
		}, []string{"handler anonymous", "onError recordError", "GET /x"}, "GET /x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp, rec := traced(t)
			s := app.New()
			require.NoError(t, s.Register(otel.Plugin(options(tp, otel.LifecycleSpans())...)))
			c.setup(s)
			require.Equal(t, 500, send(t, "GET", listen(t, s)+"/x"))
			var names []string
			for _, sp := range rec.Ended() {
				names = append(names, sp.Name())
				if sp.Name() == c.failed {
					assert.Equal(t, codes.Error, sp.Status().Code, sp.Name())
					assert.NotEmpty(t, sp.Events(), "the error is recorded on %s", sp.Name())
				}
				if sp.Name() == "GET /x" {
					assert.Equal(t, codes.Error, sp.Status().Code)
					assert.Equal(t, int64(500), attrs(sp)["http.response.status_code"].AsInt64())
				}
			}
			assert.Equal(t, c.spans, names)
		})
	}
}

func notFoundHook() {}

// A not-found handler of a context with hooks: its request has the
// hooks' and handler's spans too, under a span named after the method.
func TestNotFoundLifecycleSpans(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp, otel.LifecycleSpans())...)))
	s.Register(func(api *app.Server) error {
		api.AddHook(app.OnRequest, notFoundHook)
		return api.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("no") })
	}, app.Prefix("/api"), app.Name("api"))
	require.Equal(t, 404, send(t, "GET", listen(t, s)+"/api/nope"))
	assert.Equal(t, []string{"onRequest notFoundHook", "handler anonymous", "GET"}, spanNames(rec.Ended()))
	assert.Equal(t, "root > api", attrs(rec.Ended()[2])[otel.ContextKey].AsString())
}

// Custom span names and attributes: a handler or hook sets them on the
// request's span (found in its context), and they are exported as set.
func TestCustomNameAndAttributes(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
	s.AddHook(app.OnRequest, func(req *httpx.Request) {
		trace.SpanFromContext(req.Context()).SetAttributes(attribute.String("tenant", req.Header("X-Tenant")))
	})
	s.Get("/reports/:id", func(req *httpx.Request) (string, error) {
		trace.SpanFromContext(req.Context()).SetName("render report")
		return "ok", nil
	})
	require.Equal(t, 200, send(t, "GET", listen(t, s)+"/reports/1", "X-Tenant", "acme"))
	require.Len(t, rec.Ended(), 1)
	sp := rec.Ended()[0]
	assert.Equal(t, "render report", sp.Name())
	assert.Equal(t, "acme", attrs(sp)["tenant"].AsString())
	assert.Equal(t, "/reports/{id}", attrs(sp)["http.route"].AsString(), "the route stays")
}

func preParsingHook()    {}
func preValidationHook() {}
func onResponseHook()    {}

// Every kind of lifecycle hook is a span, in the order they run; without
// LifecycleSpans, none is.
func TestEveryHookKindIsASpan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		steps bool
		spans []string
	}{
		{true, []string{"onRequest authHook", "preParsing preParsingHook", "preValidation preValidationHook",
			"preHandler notFoundHook", "handler anonymous", "onResponse onResponseHook", "POST /x"}},
		{false, []string{"POST /x"}},
	} {
		tp, rec := traced(t)
		var opts []otel.Option
		if c.steps {
			opts = append(opts, otel.LifecycleSpans())
		}
		s := app.New()
		require.NoError(t, s.Register(otel.Plugin(options(tp, opts...)...)))
		s.AddHook(app.OnResponse, onResponseHook)
		s.AddHook(app.PreHandler, notFoundHook)
		s.AddHook(app.PreValidation, preValidationHook)
		s.AddHook(app.PreParsing, preParsingHook)
		s.AddHook(app.OnRequest, authHook)
		s.Post("/x", func() (string, error) { return "ok", nil })
		require.Equal(t, 200, send(t, "POST", listen(t, s)+"/x"))
		assert.Equal(t, c.spans, spanNames(rec.Ended()), "steps %v", c.steps)
	}
}
