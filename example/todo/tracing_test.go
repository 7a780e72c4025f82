package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP receiver of traces and metrics, as a
// collector serves it: it decodes each protobuf export request and keeps
// its spans, the service names of their resources, and the points of
// http.server.request.duration.
type otlpReceiver struct {
	mu        sync.Mutex
	spans     []*tracepb.Span
	services  map[string]bool
	durations map[string]uint64 // "method route status": the count in the last export
	refused   []string          // what it could not decode
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err == nil && (r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf") {
		err = fmt.Errorf("%s %s as %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	var (
		req     coltrace.ExportTraceServiceRequest
		metrics colmetric.ExportMetricsServiceRequest
		out     []byte
	)
	if err == nil {
		switch r.URL.Path {
		case "/v1/traces":
			err = proto.Unmarshal(body, &req)
			out, _ = proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		case "/v1/metrics":
			err = proto.Unmarshal(body, &metrics)
			out, _ = proto.Marshal(&colmetric.ExportMetricsServiceResponse{})
		default:
			err = fmt.Errorf("%s %s", r.Method, r.URL.Path)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.refused = append(rc.refused, err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rm := range metrics.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if m.GetName() != "http.server.request.duration" {
					continue
				}
				for _, dp := range m.GetHistogram().GetDataPoints() {
					a := attributeMap(dp.GetAttributes())
					// Cumulative: each export counts every request so far.
					rc.durations[a["http.request.method"]+" "+a["http.route"]+" "+a["http.response.status_code"]] = dp.GetCount()
				}
			}
		}
	}
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				rc.services[a.GetValue().GetStringValue()] = true
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			rc.spans = append(rc.spans, ss.GetSpans()...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// received is what rc has received so far.
func (rc *otlpReceiver) received() (spans []*tracepb.Span, services []string, refused []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for s := range rc.services {
		services = append(services, s)
	}
	return append([]*tracepb.Span(nil), rc.spans...), services, append([]string(nil), rc.refused...)
}

// startReceiver serves an OTLP/HTTP receiver on a port of its own until
// t ends, and returns it with the environment that points the todo
// command at it.
func startReceiver(t *testing.T, extra ...string) (*otlpReceiver, []string) {
	rc := &otlpReceiver{services: map[string]bool{}, durations: map[string]uint64{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	env := []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_SERVICE_NAME=todo-test",
	}
	for _, kv := range os.Environ() { // none of the OTEL_* the tests run with
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return rc, append(env, extra...)
}

// buildTodo builds the todo command into a directory of t's.
func buildTodo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "todo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// process is the todo command running, its log lines read as they come.
type process struct {
	cmd    *exec.Cmd
	base   string
	exited chan error // run's error, once it has exited and its log is read
	waited bool       // exited was received by stop
	mu     sync.Mutex
	lines  []map[string]any
}

// startProcess runs bin with env and args (after -port 0), until its
// public server listens. It is killed, if still running, when t ends.
func startProcess(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, append([]string{"-port", "0"}, args...)...), exited: make(chan error, 1)}
	p.cmd.Env = env
	stderr, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	listening := make(chan string, 1)
	go func() {
		logs := bufio.NewReader(stderr)
		for {
			line, err := logs.ReadString('\n')
			var entry map[string]any
			if json.Unmarshal([]byte(line), &entry) == nil {
				p.mu.Lock()
				p.lines = append(p.lines, entry)
				p.mu.Unlock()
				if entry["msg"] == "server listening" && entry["logger"] == nil {
					listening <- entry["address"].(string)
				}
			}
			if err != nil {
				break
			}
		}
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if !p.waited {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case addr := <-listening:
		p.base = "http://" + addr
	case err := <-p.exited:
		p.exited <- err
		require.FailNow(t, "the todo command ended before listening", "%v", err)
	}
	return p
}

// stop sends the process SIGTERM and waits for it to exit, which it must
// do cleanly.
func (p *process) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.exited:
		p.waited = true
		require.NoError(t, err, "the todo command's exit on SIGTERM")
	case <-time.After(hangLimit):
		require.FailNow(t, "the todo command has not exited a minute after SIGTERM")
	}
}

// logLines is the process's log so far.
func (p *process) logLines() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.lines...)
}

// attributes are a span's attributes, as strings.
func attributes(sp *tracepb.Span) map[string]string { return attributeMap(sp.GetAttributes()) }

func attributeMap(kvs []*commonpb.KeyValue) map[string]string {
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

// TestTracesOverOTLP runs the built command with the OTEL_* variables
// pointing at a real OTLP/HTTP receiver: every request is a SERVER span
// named after its route, with its attributes; a request's traceparent
// is continued, and its access log lines carry the trace id; spans reach
// the receiver within 10 s while the service runs, and those still
// buffered by the time the process has exited on SIGTERM, with the
// http.server.request.duration points of every request by route.
func TestTracesOverOTLP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the todo command")
	}
	t.Parallel()
	bin := buildTodo(t)
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		caller  = "00f067aa0ba902b7"
		todos   = "root > api > todos"
	)

	t.Run("exported while serving", func(t *testing.T) {
		t.Parallel()
		rc, env := startReceiver(t) // the default batching: an export every 5 s
		p := startProcess(t, bin, env, "-users", users)
		c := &http.Client{Timeout: hangLimit}
		defer c.CloseIdleConnections()
		a, err := sendOn(c, "POST", p.base+"/todos", `{"title":"Milk"}`, "Authorization", alice, "Content-Type", jsonType)
		require.NoError(t, err)
		require.Equal(t, http.StatusCreated, a.status, a.body)
		a, err = sendOn(c, "GET", p.base+"/todos/1", "", "Authorization", alice, "traceparent", "00-"+traceID+"-"+caller+"-01")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, a.status, a.body)

		// The contract's bound: a span is at the receiver within 10 s.
		var got *tracepb.Span
		deadline := time.Now().Add(10 * time.Second)
		for got == nil {
			spans, _, refused := rc.received()
			require.Empty(t, refused)
			for _, sp := range spans {
				if hex.EncodeToString(sp.GetTraceId()) == traceID {
					got = sp
				}
			}
			require.True(t, got != nil || time.Now().Before(deadline), "no span of trace %s after 10 s; %d others", traceID, len(spans))
			time.Sleep(50 * time.Millisecond) // polling interval
		}
		assert.Equal(t, "GET /todos/{id}", got.GetName())
		assert.Equal(t, tracepb.Span_SPAN_KIND_SERVER, got.GetKind())
		assert.Equal(t, caller, hex.EncodeToString(got.GetParentSpanId()), "the caller's span is the parent")
		attrs := attributes(got)
		assert.Equal(t, "/todos/{id}", attrs["http.route"])
		assert.Equal(t, "GET", attrs["http.request.method"])
		assert.Equal(t, "200", attrs["http.response.status_code"])
		assert.Equal(t, todos, attrs["burrow.context"])
		_, services, _ := rc.received()
		assert.Equal(t, []string{"todo-test"}, services)

		var logged []string
		for _, line := range p.logLines() {
			if line["trace_id"] == traceID {
				logged = append(logged, line["msg"].(string))
				assert.Equal(t, hex.EncodeToString(got.GetSpanId()), line["span_id"], "%v", line)
			}
		}
		assert.Equal(t, []string{"incoming request", "request completed"}, logged, "the access log lines of the traced request")
		p.stop(t)
	})

	t.Run("refuses another protocol", func(t *testing.T) {
		t.Parallel()
		_, env := startReceiver(t, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
		cmd := exec.CommandContext(t.Context(), bin, "-port", "0")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		assert.Equal(t, 1, exit.ExitCode())
		assert.Contains(t, string(out), `todo: OTEL_EXPORTER_OTLP_PROTOCOL is "grpc", but only http/protobuf is supported`)
	})

	t.Run("flushed on SIGTERM", func(t *testing.T) {
		t.Parallel()
		// An hour between exports: the spans can only arrive through the
		// flush at shutdown.
		rc, env := startReceiver(t, "OTEL_BSP_SCHEDULE_DELAY=3600000")
		p := startProcess(t, bin, env, "-users", users, "-admin", "127.0.0.1:0")
		c := &http.Client{Timeout: hangLimit}
		defer c.CloseIdleConnections()
		requests := []struct {
			method, path, auth, body string
			status                   int
			name, route              string
		}{
			{"POST", "/todos", alice, `{"title":"Milk"}`, http.StatusCreated, "POST /todos", "/todos"},
			{"GET", "/todos/1", alice, "", http.StatusOK, "GET /todos/{id}", "/todos/{id}"},
			{"GET", "/todos/2", alice, "", http.StatusNotFound, "GET /todos/{id}", "/todos/{id}"},
			{"GET", "/todos", "", "", http.StatusUnauthorized, "GET /todos", "/todos"},
			{"PATCH", "/todos/1", alice, `{"done":true}`, http.StatusOK, "PATCH /todos/{id}", "/todos/{id}"},
			{"GET", "/healthz", "", "", http.StatusNotFound, "GET", ""}, // on the admin port with -admin
			{"GET", "/no/such/path", "", "", http.StatusNotFound, "GET", ""},
		}
		want := map[string]int{}
		wantDurations := map[string]uint64{}
		for _, r := range requests {
			header := []string{"Content-Type", jsonType}
			if r.auth != "" {
				header = append(header, "Authorization", r.auth)
			}
			a, err := sendOn(c, r.method, p.base+r.path, r.body, header...)
			require.NoError(t, err)
			require.Equal(t, r.status, a.status, "%s %s: %s", r.method, r.path, a.body)
			want[fmt.Sprintf("%s %s %d", r.name, r.route, r.status)]++
			wantDurations[fmt.Sprintf("%s %s %d", r.method, r.route, r.status)]++
		}
		c.CloseIdleConnections()
		p.stop(t)

		spans, services, refused := rc.received()
		require.Empty(t, refused)
		assert.Equal(t, []string{"todo-test"}, services)
		got, transactions := map[string]int{}, map[string]int{}
		servers := map[string]bool{} // span ids
		for _, sp := range spans {
			if sp.GetKind() == tracepb.Span_SPAN_KIND_SERVER {
				servers[string(sp.GetSpanId())] = true
			}
		}
		for _, sp := range spans {
			attrs := attributes(sp)
			if sp.GetName() == "transaction" { // the database's, a child of its request's
				assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, sp.GetKind())
				assert.True(t, servers[string(sp.GetParentSpanId())], "a transaction's parent is its request's span")
				transactions[attrs["db.transaction.outcome"]]++
				continue
			}
			assert.Equal(t, tracepb.Span_SPAN_KIND_SERVER, sp.GetKind(), sp.GetName())
			assert.Equal(t, strings.Fields(sp.GetName())[0], attrs["http.request.method"], sp.GetName())
			assert.NotEmpty(t, attrs["burrow.context"], sp.GetName())
			got[fmt.Sprintf("%s %s %s", sp.GetName(), attrs["http.route"], attrs["http.response.status_code"])]++
		}
		assert.Equal(t, want, got, "a span per request, each exported")
		assert.Equal(t, map[string]int{"commit": 3, "rollback": 1}, transactions,
			"a transaction per authenticated todo request; the 404 rolled back")
		rc.mu.Lock()
		defer rc.mu.Unlock()
		assert.Equal(t, wantDurations, rc.durations, "http.server.request.duration by route, exported at exit")
	})
}

// TestTracingWanted: tracing is on when the environment names a traces
// exporter, and off when the SDK is disabled or nothing is named.
func TestTracingWanted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"OTEL_SERVICE_NAME", "todo"}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, true},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces"}, true},
		{[]string{"OTEL_TRACES_EXPORTER", "none"}, true}, // trace ids in the logs, nothing exported
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_SDK_DISABLED", "TRUE"}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_SDK_DISABLED", "false"}, true},
	} {
		assert.Equal(t, tc.want, tracingWanted(env(tc.env...)), "%v", tc.env)
	}
}
