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
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// receiver is an OTLP/HTTP trace receiver decoding what it gets.
type receiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
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
	got := map[string]string{}
	for _, a := range sp.GetAttributes() {
		v := a.GetValue()
		got[a.GetKey()] = v.GetStringValue()
		if _, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
			got[a.GetKey()] = strconv.FormatInt(v.GetIntValue(), 10)
		}
	}
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
