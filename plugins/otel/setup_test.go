package otel_test

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gootel "go.opentelemetry.io/otel"
	colmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// receiver is an OTLP/HTTP receiver of traces and metrics decoding
// what it gets.
type receiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricpb.Metric
	service string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	switch r.URL.Path {
	case "/v1/traces":
		rc.traces(w, body)
	case "/v1/metrics":
		rc.receiveMetrics(w, body)
	default:
		http.NotFound(w, r)
	}
}

func (rc *receiver) receiveMetrics(w http.ResponseWriter, body []byte) {
	var req colmetric.ExportMetricsServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			rc.metrics = append(rc.metrics, sm.GetMetrics()...)
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&colmetric.ExportMetricsServiceResponse{})
	_, _ = w.Write(out)
}

// durations are the http.server.request.duration points received, as
// "method route status" and their counts in the last export (the SDK's
// are cumulative: each export holds every request so far).
func (rc *receiver) durations() map[string]uint64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]uint64{}
	for _, m := range rc.metrics {
		if m.GetName() != "http.server.request.duration" {
			continue
		}
		for _, dp := range m.GetHistogram().GetDataPoints() {
			a := attrMap(dp.GetAttributes())
			out[a["http.request.method"]+" "+a["http.route"]+" "+a["http.response.status_code"]] = dp.GetCount()
		}
	}
	return out
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	got := map[string]string{}
	for _, a := range kvs {
		v := a.GetValue()
		got[a.GetKey()] = v.GetStringValue()
		if _, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
			got[a.GetKey()] = strconv.FormatInt(v.GetIntValue(), 10)
		}
	}
	return got
}

func (rc *receiver) traces(w http.ResponseWriter, body []byte) {
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				rc.service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			rc.spans = append(rc.spans, ss.GetSpans()...)
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// TestSetupExportsOverOTLPHTTP: configured from OTEL_* variables, the
// spans of a server reach a real OTLP/HTTP receiver, the last ones by
// the time shutdown returns.
func TestSetupExportsOverOTLPHTTP(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "todo-test")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "60000") // only shutdown flushes
	prevTP, prevProp := gootel.GetTracerProvider(), gootel.GetTextMapPropagator()
	defer func() { gootel.SetTracerProvider(prevTP); gootel.SetTextMapPropagator(prevProp) }()

	shutdown, err := otel.Setup(context.Background())
	require.NoError(t, err)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(otel.TrustIncoming()))) // a service whose callers are ours
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	require.NoError(t, s.Ready())
	r := httptest.NewRequest("GET", "/todos/9", nil)
	r.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	res, err := s.Inject(r)
	require.NoError(t, err)
	res.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, shutdown(ctx))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Len(t, rc.spans, 1)
	sp := rc.spans[0]
	assert.Equal(t, "todo-test", rc.service)
	assert.Equal(t, "GET /todos/{id}", sp.GetName())
	assert.Equal(t, tracepb.Span_SPAN_KIND_SERVER, sp.GetKind())
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", hex.EncodeToString(sp.GetTraceId()))
	assert.Equal(t, "00f067aa0ba902b7", hex.EncodeToString(sp.GetParentSpanId()))
	got := attrMap(sp.GetAttributes())
	assert.Equal(t, "/todos/{id}", got["http.route"])
	assert.Equal(t, "GET", got["http.request.method"])
	assert.Equal(t, "200", got["http.response.status_code"])
	assert.Equal(t, "root", got["burrow.context"])
}

func TestSetupRefusesOtherProtocols(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	_, err := otel.Setup(context.Background())
	require.ErrorIs(t, err, otel.ErrProtocol)
	assert.ErrorContains(t, err, `OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"`)
}

func TestSetupDisabled(t *testing.T) {
	t.Setenv("OTEL_SDK_DISABLED", "true")
	prev := gootel.GetTracerProvider()
	shutdown, err := otel.Setup(context.Background())
	require.NoError(t, err)
	assert.Equal(t, prev, gootel.GetTracerProvider())
	assert.NoError(t, shutdown(context.Background()))
}

// restoreGlobals puts back the global providers and propagator Setup
// replaces.
func restoreGlobals(t *testing.T) {
	prevTP, prevMP, prevProp := gootel.GetTracerProvider(), gootel.GetMeterProvider(), gootel.GetTextMapPropagator()
	t.Cleanup(func() {
		gootel.SetTracerProvider(prevTP)
		gootel.SetMeterProvider(prevMP)
		gootel.SetTextMapPropagator(prevProp)
	})
}

// TestSetupExportsMetrics: configured from OTEL_* variables, the
// http.server.request.duration histogram reaches a real OTLP/HTTP
// receiver with the route, method and status: at the latest when
// shutdown returns, at the export interval before; at the metrics
// endpoint when one is set; not at all when the exporter is none.
func TestSetupExportsMetrics(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      []string // after OTEL_EXPORTER_OTLP_ENDPOINT=common's URL
		metrics  bool     // a metrics endpoint of its own, named by OTEL_EXPORTER_OTLP_METRICS_ENDPOINT
		periodic bool     // exported before shutdown
		none     bool
	}{
		{name: "at shutdown", env: []string{"OTEL_METRIC_EXPORT_INTERVAL", "3600000"}},
		{name: "metrics endpoint", env: []string{"OTEL_METRIC_EXPORT_INTERVAL", "3600000"}, metrics: true},
		{name: "periodically", env: []string{"OTEL_METRIC_EXPORT_INTERVAL", "20"}, periodic: true},
		{name: "none", env: []string{"OTEL_METRICS_EXPORTER", "none"}, none: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			common, own := &receiver{}, &receiver{}
			srv := httptest.NewServer(common)
			defer srv.Close()
			ownSrv := httptest.NewServer(own)
			defer ownSrv.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
			t.Setenv("OTEL_SERVICE_NAME", "todo-test")
			for i := 0; i+1 < len(c.env); i += 2 {
				t.Setenv(c.env[i], c.env[i+1])
			}
			if c.metrics {
				t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", ownSrv.URL+"/v1/metrics")
			}
			restoreGlobals(t)

			shutdown, err := otel.Setup(context.Background())
			require.NoError(t, err)
			s := app.New()
			require.NoError(t, s.Register(otel.Plugin()))
			s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
			require.NoError(t, s.Ready())
			hs := httptest.NewServer(s)
			defer hs.Close()
			for _, path := range []string{"/todos/1", "/todos/2", "/nowhere"} {
				res, err := http.Get(hs.URL + path)
				require.NoError(t, err)
				res.Body.Close()
			}
			want := map[string]uint64{"GET /todos/{id} 200": 2, "GET  404": 1}
			got := common
			if c.metrics {
				got = own
			}
			if c.periodic {
				require.Eventually(t, func() bool { return assert.ObjectsAreEqual(want, got.durations()) },
					10*time.Second, 10*time.Millisecond, "no export before shutdown")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, shutdown(ctx))
			if c.none {
				assert.Empty(t, common.durations())
				return
			}
			assert.Equal(t, want, got.durations())
			if c.metrics {
				assert.Empty(t, common.durations(), "the metrics endpoint wins")
			}
			common.mu.Lock()
			defer common.mu.Unlock()
			assert.Len(t, common.spans, 3, "traces go on to the common endpoint")
		})
	}
}

func TestSetupRefusesOtherMetricsExporters(t *testing.T) {
	for _, env := range [][2]string{{"OTEL_METRICS_EXPORTER", "prometheus"}, {"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			_, err := otel.Setup(context.Background())
			require.ErrorIs(t, err, otel.ErrProtocol)
			assert.ErrorContains(t, err, env[0]+` is "`+env[1]+`"`)
		})
	}
}
