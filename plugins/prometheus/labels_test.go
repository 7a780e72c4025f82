package prometheus_test

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

// live serves s and the scrape of m on real listeners until t ends; it
// returns their base URLs.
func live(t *testing.T, s *app.Server, m *prometheus.Metrics) (base, metrics string) {
	t.Helper()
	require.NoError(t, s.Ready())
	admin := app.New()
	admin.Get("/metrics", m.Handler())
	require.NoError(t, admin.Ready())
	srv, adm := httptest.NewServer(s), httptest.NewServer(admin)
	t.Cleanup(srv.Close)
	t.Cleanup(adm.Close)
	return srv.URL, adm.URL + "/metrics"
}

func hit(t *testing.T, method, url string) int {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

func scrapeURL(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	require.NoError(t, err)
	return fams
}

func ok() (string, error) { return "ok", nil }

// Label sets: one route value per pattern whatever the parameters, every
// method of a multi-method path under the same route, custom labels for
// unmatched paths and 405s, status classes from 2xx to 5xx, and skips by
// path prefix (regex-like) or method that hold for unmatched paths too.
func TestLabelSets(t *testing.T) {
	t.Parallel()
	status := func(code int) func(*httpx.Reply) error {
		return func(rep *httpx.Reply) error { return rep.Code(code).Send("x") }
	}
	for _, c := range []struct {
		name     string
		opts     []prometheus.Option
		requests [][2]string // method, path
		want     map[string]float64
	}{
		{"route pattern with params", nil,
			[][2]string{{"GET", "/users/1"}, {"GET", "/users/2/posts/3"}, {"GET", "/users/4/posts/5"}},
			map[string]float64{
				"context=root,method=GET,route=/users/{id},status=200":              1,
				"context=root,method=GET,route=/users/{id}/posts/{post},status=200": 2,
			}},
		{"every method of one path", nil,
			[][2]string{{"GET", "/items/1"}, {"PUT", "/items/1"}, {"DELETE", "/items/1"}, {"HEAD", "/items/1"}},
			map[string]float64{
				"context=root,method=GET,route=/items/{id},status=200":    1,
				"context=root,method=PUT,route=/items/{id},status=200":    1,
				"context=root,method=DELETE,route=/items/{id},status=200": 1,
				"context=root,method=HEAD,route=/items/{id},status=200":   1,
			}},
		{"custom unmatched and 405 labels", []prometheus.Option{prometheus.Unmatched("__unknown__", "__405__")},
			[][2]string{{"GET", "/a/b/c"}, {"POST", "/x"}, {"PATCH", "/users/1"}},
			map[string]float64{
				"context=root,method=GET,route=__unknown__,status=404":  1,
				"context=root,method=POST,route=__unknown__,status=404": 1,
				"context=root,method=PATCH,route=__405__,status=405":    1,
			}},
		{"status classes", []prometheus.Option{prometheus.GroupStatusCodes()},
			[][2]string{{"GET", "/s/201"}, {"GET", "/s/204"}, {"GET", "/s/301"}, {"GET", "/s/302"}, {"GET", "/s/418"}, {"GET", "/s/500"}, {"GET", "/s/503"}},
			map[string]float64{
				"context=root,method=GET,route=/s/201,status=2xx": 1,
				"context=root,method=GET,route=/s/204,status=2xx": 1,
				"context=root,method=GET,route=/s/301,status=3xx": 1,
				"context=root,method=GET,route=/s/302,status=3xx": 1,
				"context=root,method=GET,route=/s/418,status=4xx": 1,
				"context=root,method=GET,route=/s/500,status=5xx": 1,
				"context=root,method=GET,route=/s/503,status=5xx": 1,
			}},
		{"skip by path prefix, matched or not", []prometheus.Option{prometheus.Skip(func(o app.Observation) bool {
			p := o.Request.URL.Path
			return p == "/docs" || strings.HasPrefix(p, "/docs/")
		})},
			[][2]string{{"GET", "/docs"}, {"GET", "/docs/json"}, {"GET", "/docs/static/x.css"}, {"GET", "/docsearch"}},
			map[string]float64{
				"context=root,method=GET,route=/docsearch,status=200": 1,
			}},
		{"skip by method, matched or not", []prometheus.Option{prometheus.Skip(func(o app.Observation) bool { return o.Request.Method == "POST" })},
			[][2]string{{"POST", "/items/1"}, {"POST", "/nowhere"}, {"GET", "/items/1"}, {"GET", "/nowhere"}},
			map[string]float64{
				"context=root,method=GET,route=/items/{id},status=200": 1,
				"context=root,method=GET,route=unmatched,status=404":   1,
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := prometheus.New(append([]prometheus.Option{prometheus.NoRuntimeMetrics()}, c.opts...)...)
			s := app.New()
			require.NoError(t, s.Register(m.Plugin()))
			s.Get("/users/:id", ok)
			s.Get("/users/:id/posts/:post", ok)
			for _, method := range []string{"GET", "PUT", "DELETE"} {
				s.Route(method, "/items/:id", ok)
			}
			s.Post("/items/:id", ok)
			for _, code := range []int{201, 204, 301, 302, 418, 500, 503} {
				s.Get("/s/"+itoa(code), status(code))
			}
			s.Get("/docs", ok)
			s.Get("/docs/*", ok)
			s.Get("/docsearch", ok)
			base, metrics := live(t, s, m)
			for _, r := range c.requests {
				hit(t, r[0], base+r[1])
			}
			fams := scrapeURL(t, metrics)
			assert.Equal(t, c.want, series(fams, "http_server_requests_total"))
			assert.Equal(t, c.want, series(fams, "http_server_request_duration_seconds"))
		})
	}
}

// Custom buckets are the histogram's classic buckets, as set; constant
// labels are on every request metric; NoRuntimeMetrics leaves the Go
// and process collectors out; a registry of the application's keeps its
// own metrics beside the request metrics.
func TestRegistryOptions(t *testing.T) {
	t.Parallel()
	reg := prom.NewRegistry()
	jobs := prom.NewCounter(prom.CounterOpts{Name: "jobs_done_total", Help: "Jobs done."})
	reg.MustRegister(jobs)
	jobs.Add(3)
	m := prometheus.New(prometheus.Registry(reg), prometheus.Buckets(0.05, 0.1, 0.5, 1, 3, 5, 10),
		prometheus.ConstLabels(prom.Labels{"service": "todo"}), prometheus.NoRuntimeMetrics(), prometheus.NativeBuckets(0))
	s := app.New()
	require.NoError(t, s.Register(m.Plugin()))
	s.Get("/x", ok)
	base, metrics := live(t, s, m)
	require.Equal(t, 200, hit(t, "GET", base+"/x"))
	fams := scrapeURL(t, metrics)

	assert.Equal(t, float64(3), fams["jobs_done_total"].GetMetric()[0].GetCounter().GetValue())
	assert.NotContains(t, fams, "go_goroutines")
	assert.NotContains(t, fams, "process_start_time_seconds")
	assert.Equal(t, map[string]float64{"context=root,method=GET,route=/x,service=todo,status=200": 1},
		series(fams, "http_server_requests_total"))
	h := fams["http_server_request_duration_seconds"].GetMetric()[0].GetHistogram()
	var bounds []float64
	for _, b := range h.GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	assert.Equal(t, []float64{0.05, 0.1, 0.5, 1, 3, 5, 10, math.Inf(1)}, bounds)
	assert.Equal(t, "service=todo", labelsOf(fams["http_server_active_requests"].GetMetric()[0], "service"))

	// The metrics are there once: a second set in the same registry is
	// refused, as client_golang refuses any duplicate.
	assert.Panics(t, func() { prometheus.New(prometheus.Registry(reg), prometheus.NoRuntimeMetrics()) })
}

func labelsOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetName() + "=" + l.GetValue()
		}
	}
	return ""
}

// Two servers in one process, each with its Metrics: each registry
// counts its own server's requests only, and neither touches the global
// registry; a Metrics registered in one context counts that context and
// its descendants, not its parent nor its sibling.
func TestRegistryIsolation(t *testing.T) {
	t.Parallel()
	a, b := prometheus.New(), prometheus.New()
	sa, sb := app.New(), app.New()
	require.NoError(t, sa.Register(a.Plugin()))
	sa.Get("/a", ok)
	sb.Get("/root", ok)
	sb.Register(func(api *app.Server) error {
		require.NoError(t, api.Register(b.Plugin()))
		api.Register(func(v1 *app.Server) error { return v1.Get("/b", ok) }, app.Prefix("/v1"), app.Name("v1"))
		return api.Get("/b", ok)
	}, app.Prefix("/api"), app.Name("api"))
	sb.Register(func(other *app.Server) error { return other.Get("/other", ok) }, app.Name("other"))
	baseA, metricsA := live(t, sa, a)
	baseB, metricsB := live(t, sb, b)
	hit(t, "GET", baseA+"/a")
	for _, p := range []string{"/root", "/api/b", "/api/v1/b", "/other", "/api/none"} {
		hit(t, "GET", baseB+p)
	}
	assert.Equal(t, map[string]float64{"context=root,method=GET,route=/a,status=200": 1},
		series(scrapeURL(t, metricsA), "http_server_requests_total"))
	assert.Equal(t, map[string]float64{
		"context=root > api,method=GET,route=/api/b,status=200":         1,
		"context=root > api > v1,method=GET,route=/api/v1/b,status=200": 1,
	}, series(scrapeURL(t, metricsB), "http_server_requests_total"), "/api/none is the root's not-found handler's")

	gathered, err := prom.DefaultGatherer.Gather()
	require.NoError(t, err)
	for _, f := range gathered {
		assert.False(t, strings.HasPrefix(f.GetName(), "http_server_"), "%s in the global registry", f.GetName())
	}
}
