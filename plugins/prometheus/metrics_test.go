package prometheus_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/testbin"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

// served is a server observed by m, with a route, a prefixed context
// with a route and a not-found handler of its own, and an admin server
// (another listener's) serving the scrape.
func served(t *testing.T, m *prometheus.Metrics, opts ...func(*app.Server)) (s, admin *app.Server) {
	t.Helper()
	s = app.New()
	require.NoError(t, s.Register(m.Plugin()))
	s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	s.Register(func(api *app.Server) error {
		api.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("no such api") })
		return api.Post("/items", func() error { return httpx.NewError(409, "TAKEN", "taken") })
	}, app.Prefix("/api"), app.Name("api"))
	for _, o := range opts {
		o(s)
	}
	require.NoError(t, s.Ready())
	admin = app.New()
	admin.Get("/metrics", m.Handler())
	require.NoError(t, admin.Ready())
	return s, admin
}

func do(t *testing.T, s *app.Server, method, target string, hdr ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := s.Inject(r)
	require.NoError(t, err)
	return res
}

// scrape reads admin's /metrics in the text format.
func scrape(t *testing.T, admin *app.Server) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	res := do(t, admin, "GET", "/metrics")
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	require.NoError(t, err)
	return string(body), fams
}

// series is the label sets of family name, as "k=v,k=v" in label order,
// with their counts (counter value or histogram sample count).
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		var parts []string
		for _, l := range m.GetLabel() {
			parts = append(parts, l.GetName()+"="+l.GetValue())
		}
		v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		out[strings.Join(parts, ",")] = v
	}
	return out
}

func TestREDMetricsByRouteAndContext(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	s, admin := served(t, m)
	for _, c := range []struct {
		method, target string
		status         int
	}{
		{"GET", "/todos/1", 200},
		{"GET", "/todos/2", 200},
		{"POST", "/api/items", 409},
		{"DELETE", "/api/items", 405},
		{"GET", "/nowhere", 404},
		{"GET", "/api/nowhere", 404},
		{"BREW", "/todos/3", 405},
	} {
		res := do(t, s, c.method, c.target)
		res.Body.Close()
		require.Equal(t, c.status, res.StatusCode, "%s %s", c.method, c.target)
	}
	_, fams := scrape(t, admin)
	want := map[string]float64{
		"context=root,method=GET,route=/todos/{id},status=200":                 2,
		"context=root > api,method=POST,route=/api/items,status=409":           1,
		"context=root > api,method=DELETE,route=method_not_allowed,status=405": 1,
		"context=root,method=GET,route=unmatched,status=404":                   1,
		"context=root > api,method=GET,route=unmatched,status=404":             1,
		"context=root,method=_OTHER,route=method_not_allowed,status=405":       1,
	}
	assert.Equal(t, want, series(fams, "http_server_requests_total"))
	assert.Equal(t, want, series(fams, "http_server_request_duration_seconds"))
	assert.Equal(t, map[string]float64{"context=root": 0, "context=root > api": 0}, series(fams, "http_server_active_requests"))
	assert.Contains(t, fams, "go_goroutines")
	assert.Contains(t, fams, "process_start_time_seconds")
	assert.NotContains(t, fams, "promhttp_metric_handler_requests_total", "the registry is the server's own")
}

// TestUnknownPathsAddAHandfulOfSeries: 1,000 distinct unknown paths, and
// as many made-up methods, are one route value and one method value.
func TestUnknownPathsAddAHandfulOfSeries(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	s, admin := served(t, m)
	count := func() int {
		_, fams := scrape(t, admin)
		n := 0
		for name, f := range fams {
			if strings.HasPrefix(name, "http_server_") {
				n += len(f.GetMetric())
			}
		}
		return n
	}
	before := count()
	for i := range 1000 {
		res := do(t, s, "GET", "/unknown/"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"/"+itoa(i))
		res.Body.Close()
		res = do(t, s, "M"+itoa(i), "/todos/1")
		res.Body.Close()
		res = do(t, s, "GET", "/api/x"+itoa(i))
		res.Body.Close()
	}
	added := count() - before
	assert.LessOrEqual(t, added, 8, "series added by 3,000 requests with made-up paths and methods")
	_, fams := scrape(t, admin)
	assert.Equal(t, float64(1000), series(fams, "http_server_requests_total")["context=root,method=GET,route=unmatched,status=404"])
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestActiveRequests: the gauge counts a request while it is served.
func TestActiveRequests(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	entered, release := make(chan struct{}), make(chan struct{})
	s, admin := served(t, m, func(s *app.Server) {
		s.Get("/slow", func() { close(entered); <-release })
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := s.Inject(httptest.NewRequest("GET", "/slow", nil))
		if err == nil {
			res.Body.Close()
		}
	}()
	<-entered
	_, fams := scrape(t, admin)
	assert.Equal(t, float64(1), series(fams, "http_server_active_requests")["context=root"])
	close(release)
	<-done
	_, fams = scrape(t, admin)
	assert.Equal(t, float64(0), series(fams, "http_server_active_requests")["context=root"])
}

// TestExemplarCarriesTheTraceID: a request whose context carries a
// sampled span gets an exemplar with its trace id, in OpenMetrics.
func TestExemplarCarriesTheTraceID(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	tid := trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	s, admin := served(t, m, func(s *app.Server) {
		s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Traced") == "" {
					next.ServeHTTP(w, r)
					return
				}
				sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled})
				next.ServeHTTP(w, r.WithContext(trace.ContextWithSpanContext(r.Context(), sc)))
			})
		})
	})
	res := do(t, s, "GET", "/todos/1", "X-Traced", "1")
	res.Body.Close()
	res = do(t, s, "GET", "/api/items")
	res.Body.Close()
	res = do(t, admin, "GET", "/metrics", "Accept", "application/openmetrics-text; version=1.0.0")
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Contains(t, res.Header.Get("Content-Type"), "application/openmetrics-text")
	assert.Contains(t, string(body), `http_server_requests_total{context="root",method="GET",route="/todos/{id}",status="200"} 1.0 # {trace_id="`+tid.String()+`"} 1.0`)
	assert.Contains(t, string(body), `http_server_request_duration_seconds_bucket{context="root",method="GET",route="/todos/{id}",status="200",le="0.005"} 1 # {trace_id="`+tid.String()+`"}`)
	assert.Equal(t, 2, strings.Count(string(body), "trace_id="), "the counter's and the bucket's; the untraced request added none")
}

func TestPluginObservesOneContext(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	s := app.New()
	require.NoError(t, s.Register(m.Plugin()))
	s.Register(func(c *app.Server) error { return c.Register(m.Plugin()) })
	require.ErrorContains(t, s.Ready(), "already observe a context")
}

// TestExpositionPassesPromtool: promtool accepts what a scrape gets.
func TestExpositionPassesPromtool(t *testing.T) {
	t.Parallel()
	promtool := lookPath(t, "promtool", "prometheus")
	m := prometheus.New()
	s, admin := served(t, m)
	for _, target := range []string{"/todos/1", "/nowhere", "/api/items"} {
		res := do(t, s, "GET", target)
		res.Body.Close()
	}
	body, _ := scrape(t, admin)
	file := filepath.Join(t.TempDir(), "metrics.txt")
	require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
	in, err := os.Open(file)
	require.NoError(t, err)
	defer in.Close()
	cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	cmd.Stdin = in
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "promtool check metrics:\n%s", out)
}

// lookPath finds an external command, or skips the test (fails it when
// CI is set) with the Debian package that has it.
func lookPath(t *testing.T, name, pkg string) string { return testbin.LookPath(t, pkg, name) }

// TestSkipAndGroupStatusCodes: skipped requests are not counted, in or
// out; the status label is the class.
func TestSkipAndGroupStatusCodes(t *testing.T) {
	t.Parallel()
	m := prometheus.New(
		prometheus.Skip(func(o app.Observation) bool { return o.Route == "/healthz" || o.Request.Method == "OPTIONS" }),
		prometheus.GroupStatusCodes(),
	)
	s, admin := served(t, m, func(s *app.Server) {
		s.Get("/healthz", func() (string, error) { return "ok", nil })
	})
	for _, c := range []struct{ method, target string }{
		{"GET", "/healthz"}, {"OPTIONS", "/todos/1"}, {"GET", "/todos/1"}, {"GET", "/todos/2"}, {"POST", "/api/items"},
	} {
		res := do(t, s, c.method, c.target)
		res.Body.Close()
	}
	_, fams := scrape(t, admin)
	assert.Equal(t, map[string]float64{
		"context=root,method=GET,route=/todos/{id},status=2xx":       2,
		"context=root > api,method=POST,route=/api/items,status=4xx": 1,
	}, series(fams, "http_server_requests_total"))
	assert.Equal(t, map[string]float64{"context=root": 0, "context=root > api": 0}, series(fams, "http_server_active_requests"))
}
