package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bench/internal/stack"
	"github.com/burrow-go/burrow/plugins/secure"
)

// The production stack, side by side: the edge of stack_test.go plus a
// per-IP rate limit and Prometheus request metrics, on a 2 KiB answer
// (bench/internal/stack). Under load: scripts/stack-bench.sh.
//
//	cd bench && go test -run XXX -bench FullStack -benchmem -benchtime=2000x

// fullStack is one stack under test: its handler, its registry, and the
// rate-limit header that shows the request was counted.
type fullStack struct {
	handler  http.Handler
	registry *prom.Registry
	// statusLabel is the name of the status label of the metrics.
	statusLabel string
	// limited checks the rate-limit headers of a fresh server's first
	// answer.
	limited func(t *testing.T, h http.Header)
}

func fullStacks(tb testing.TB) map[string]fullStack {
	b, err := stack.NewBurrow(app.WithoutRequestLogging())
	require.NoError(tb, err)
	c, err := stack.NewChi()
	require.NoError(tb, err)
	quota := strconv.Itoa(stack.PerIP)
	left := strconv.Itoa(stack.PerIP - 1)
	return map[string]fullStack{
		"burrow": {b.Server, b.Metrics.Registry(), "status", func(t *testing.T, h http.Header) {
			assert.Equal(t, `"ip";q=`+quota+`;w=60`, h.Get("RateLimit-Policy"))
			assert.Regexp(t, `^"ip";r=`+left+`;t=\d+$`, h.Get("RateLimit"), "one request taken off the quota")
		}},
		"chi": {c.Handler, c.Registry, "code", func(t *testing.T, h http.Header) {
			assert.Equal(t, quota, h.Get("X-RateLimit-Limit"))
			assert.Equal(t, left, h.Get("X-RateLimit-Remaining"), "one request taken off the quota")
		}},
	}
}

// TestFullStacksDoTheSameWork checks, over a real connection, that both
// stacks do the work the comparison is about: CORS allowed, the security
// headers, the rate limit counting, the JSON gzipped, and the request
// counted in the server's registry.
func TestFullStacksDoTheSameWork(t *testing.T) {
	t.Parallel()
	raw, err := json.Marshal(stack.Answer)
	require.NoError(t, err)
	require.InDelta(t, 2048, len(raw), 200, "about 2 KiB before compression")
	for name, st := range fullStacks(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(st.handler)
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			defer client.CloseIdleConnections()
			req, err := http.NewRequest(http.MethodGet, srv.URL+stack.Path, nil)
			require.NoError(t, err)
			req.Header.Set("Origin", stack.Origin)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := client.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()

			require.Equal(t, http.StatusOK, res.StatusCode)
			h := res.Header
			assert.Equal(t, stack.Origin, h.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
			assert.Equal(t, "SAMEORIGIN", h.Get("X-Frame-Options"))
			assert.Equal(t, secure.DefaultCSP, h.Get("Content-Security-Policy"))
			assert.Equal(t, "max-age=31536000; includeSubDomains", h.Get("Strict-Transport-Security"))
			st.limited(t, h)
			require.Equal(t, "gzip", h.Get("Content-Encoding"))
			zr, err := gzip.NewReader(res.Body)
			require.NoError(t, err)
			body, err := io.ReadAll(zr)
			require.NoError(t, err)
			assert.JSONEq(t, string(raw), string(body))

			// The sample is recorded as the request ends, which may be
			// just after the client has its answer.
			route := map[string]string{"route": stack.Path, st.statusLabel: "200"}
			require.Eventually(t, func() bool { return metric(st.registry, "http_server_requests_total", route) == 1 },
				testWait, testTick, "one request to %s counted", stack.Path)
			assert.Equal(t, 1.0, metric(st.registry, "http_server_request_duration_seconds", route), "one duration observed")
			assert.Equal(t, 0.0, metric(st.registry, "http_server_active_requests", nil), "none in flight")
		})
	}
}

// Waiting for a condition: long enough for a loaded machine, polled
// often.
const (
	testWait = 10 * time.Second
	testTick = 5 * time.Millisecond
)

// metric is the sum of the registry's samples named name whose labels
// have the given values: a counter's or gauge's value, a histogram's
// sample count. A failed gather is -1.
func metric(reg *prom.Registry, name string, labels map[string]string) float64 {
	mfs, err := reg.Gather()
	if err != nil {
		return -1
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, labels) {
				sum += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			n++
		}
	}
	return n == len(want)
}

// BenchmarkFullStack is the route behind the whole stack, on Burrow and
// on chi, in process.
func BenchmarkFullStack(b *testing.B) {
	st := fullStacks(b)
	b.Run("burrow", func(b *testing.B) { benchStack(b, st["burrow"].handler) })
	b.Run("chi", func(b *testing.B) { benchStack(b, st["chi"].handler) })
}
