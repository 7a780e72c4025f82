package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/internal/testbin"
)

// scrape reads the admin listener's GET /metrics: each sample by its
// series (the name and labels as the text format writes them), and the
// exposition itself.
func scrape(t *testing.T, c *http.Client, admin string) (map[string]float64, string) {
	t.Helper()
	a := fetchURL(t, c, "GET", admin+"/metrics")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.True(t, strings.HasPrefix(a.header.Get("Content-Type"), "text/plain"), a.header.Get("Content-Type"))
	samples := map[string]float64{}
	for line := range strings.SplitSeq(a.body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// The value is the last field: label values may hold spaces
		// ("root > api"), the value none.
		i := strings.LastIndexByte(line, ' ')
		require.Positive(t, i, line)
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		samples[line[:i]] = v
	}
	return samples, a.body
}

// series names the sample of metric with labels, as the text format
// writes them (labels in order of name).
func series(metric, context, method, route, status string) string {
	return fmt.Sprintf(`%s{context=%q,method=%q,route=%q,status=%q}`, metric, context, method, route, status)
}

// lookPath finds an external command, or skips the test (fails it when
// CI is set) with the Debian package that has it.
func lookPath(t *testing.T, name, pkg string) string { return testbin.LookPath(t, pkg, name) }

// TestMetrics: the admin listener's GET /metrics has the public server's
// request duration labelled by method, route pattern, status and
// context, the in-flight gauge, the Go runtime's metrics, and passes
// promtool; the public port does not serve it.
func TestMetrics(t *testing.T) {
	t.Parallel()
	s, admin, _ := startAdmin(t)
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"Milk"}`).status)
	require.Equal(t, http.StatusOK, s.do(t, "GET", "/todos/1", alice, "", "").status)
	require.Equal(t, http.StatusOK, s.do(t, "GET", "/todos/1", alice, "", "").status)
	require.Equal(t, http.StatusNotFound, s.do(t, "GET", "/todos/2", alice, "", "").status)
	require.Equal(t, http.StatusNotFound, s.do(t, "GET", "/nowhere", "", "", "").status)

	samples, body := scrape(t, s.client, admin)
	const todos = "root > api > todos"
	for _, want := range []struct {
		series string
		value  float64
	}{
		{series("http_server_request_duration_seconds_count", todos, "GET", "/todos/{id}", "200"), 2},
		{series("http_server_request_duration_seconds_count", todos, "GET", "/todos/{id}", "404"), 1},
		{series("http_server_request_duration_seconds_count", todos, "POST", "/todos", "201"), 1},
		{series("http_server_request_duration_seconds_count", "root", "GET", "unmatched", "404"), 1},
		{strings.TrimSuffix(series("http_server_request_duration_seconds_bucket", todos, "GET", "/todos/{id}", "200"), "}") + `,le="+Inf"}`, 2},
		{series("http_server_requests_total", todos, "GET", "/todos/{id}", "200"), 2},
		{`http_server_active_requests{context="root > api > todos"}`, 0},
	} {
		got, ok := samples[want.series]
		if assert.True(t, ok, "no sample %s in\n%s", want.series, body) {
			assert.Equal(t, want.value, got, want.series)
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "go_gc_duration_seconds_count", "go_info"} {
		found := false
		for k := range samples {
			found = found || k == name || strings.HasPrefix(k, name+"{")
		}
		assert.True(t, found, "no Go runtime metric %s", name)
	}

	promtool := lookPath(t, "promtool", "prometheus")
	cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "promtool check metrics:\n%s", out)

	assert.Equal(t, http.StatusNotFound, s.do(t, "GET", "/metrics", "", "", "").status, "the metrics are not on the public port")
}

// TestActiveRequests: a request whose body is still arriving is counted
// by http_server_active_requests, in the context of its route, until it
// is answered.
func TestActiveRequests(t *testing.T) {
	t.Parallel()
	s, admin, _ := startAdmin(t)
	active := `http_server_active_requests{context="root > api > todos"}`
	const body = `{"title":"Slow"}`
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", s.base+"/todos", pr)
	require.NoError(t, err)
	req.ContentLength = int64(len(body))
	req.Header.Set("Authorization", alice)
	req.Header.Set("Content-Type", jsonType)
	status := make(chan int, 1)
	go func() {
		res, err := s.client.Do(req)
		if err != nil {
			status <- 0
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		status <- res.StatusCode
	}()
	_, err = io.WriteString(pw, body[:5])
	require.NoError(t, err)

	deadline := time.Now().Add(time.Minute)
	for {
		samples, _ := scrape(t, s.client, admin)
		if samples[active] == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%s is still %v", active, samples[active])
		time.Sleep(10 * time.Millisecond) // polling interval
	}
	_, err = io.WriteString(pw, body[5:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.Equal(t, http.StatusCreated, <-status)
	samples, _ := scrape(t, s.client, admin)
	assert.Equal(t, float64(0), samples[active])
	assert.Equal(t, float64(1), samples[series("http_server_requests_total", "root > api > todos", "POST", "/todos", "201")])
}

// TestUnknownPathsAddFewSeries: 1,000 requests to paths no route has,
// each different, add at most 50 series to the exposition (every sample
// line counts: each bucket of a histogram is a series), all with the one
// route value "unmatched". The per-address limit refuses most of them,
// so they are 404s and 429s.
func TestUnknownPathsAddFewSeries(t *testing.T) {
	t.Parallel()
	s, admin, _ := startAdmin(t)
	before, _ := scrape(t, s.client, admin)

	const requests, workers = 1000, 4
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < requests; i += workers {
				a, err := s.send("GET", fmt.Sprintf("/no/such/path-%d", i), "", "", "")
				if err == nil && a.status != http.StatusNotFound && a.status != http.StatusTooManyRequests {
					err = fmt.Errorf("GET /no/such/path-%d: %d %s", i, a.status, a.body)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	after, body := scrape(t, s.client, admin)
	var added []string
	var counted float64
	for k, v := range after {
		if _, ok := before[k]; !ok {
			added = append(added, k)
		}
		if strings.HasPrefix(k, "http_server_requests_total{") && strings.Contains(k, `route="unmatched"`) {
			counted += v
		}
	}
	assert.LessOrEqual(t, len(added), 50, "series added:\n%s", strings.Join(added, "\n"))
	for _, k := range added {
		if strings.HasPrefix(k, "http_server_request") {
			assert.Contains(t, k, `route="unmatched"`)
		}
	}
	assert.Equal(t, float64(requests), counted, "every request is counted\n%s", body)
}
