package shed_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/shed"
)

const shedBody = `{"statusCode":503,"error":"Service Unavailable","message":"Service under pressure"}`

func ok() (string, error) { return "ok", nil }

// blocking is a handler that holds its request until released.
type blocking struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocking() *blocking {
	return &blocking{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blocking) handle() (string, error) {
	b.entered <- struct{}{}
	<-b.release
	return "done", nil
}

func TestBulkheadShedsBeyondItsCap(t *testing.T) {
	t.Parallel()
	sh := shed.New()
	b := newBlocking()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(func(s *app.Server) error {
		s.Register(sh.Bulkhead(1))
		s.Get("/reports", b.handle)
		return s.Get("/quick", ok)
	}, app.Name("reports"))
	s.Register(func(s *app.Server) error { return s.Get("/healthz", ok) }, app.Name("probes"))
	require.NoError(t, s.Ready())

	var wg sync.WaitGroup
	wg.Add(1)
	var first *apptest.Response
	go func() {
		defer wg.Done()
		res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/reports", nil))
		if err == nil {
			res.Body.Close()
			first = &apptest.Response{StatusCode: res.StatusCode}
		}
	}()
	<-b.entered

	r := apptest.Get(t, s, "/quick")
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode, "the context's cap counts all its routes")
	assert.JSONEq(t, shedBody, r.Body)
	assert.Equal(t, "10", r.Header.Get("Retry-After"))
	assert.Equal(t, "close", r.Header.Get("Connection"), "HTTP/1.1: the client reconnects, perhaps elsewhere")
	assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/healthz").StatusCode, "another context is another bulkhead")

	close(b.release)
	wg.Wait()
	require.NotNil(t, first)
	assert.Equal(t, http.StatusOK, first.StatusCode)
	for range 3 {
		assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/quick").StatusCode, "the slot is free again")
	}
}

func TestBulkheadCountsOnlyWhatItAdmitted(t *testing.T) {
	t.Parallel()
	sh := shed.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	// An earlier hook refuses most requests: their onResponse must not
	// free a slot they never took.
	s.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
		if req.Header("X-Refuse") != "" {
			return rep.Code(http.StatusUnauthorized).Send("no")
		}
		return nil
	})
	s.Register(sh.Bulkhead(1))
	b := newBlocking()
	s.Get("/slow", b.handle)
	s.Get("/", ok)
	require.NoError(t, s.Ready())
	for range 5 {
		require.Equal(t, http.StatusUnauthorized, apptest.Get(t, s, "/", "X-Refuse", "1").StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/slow", nil))
		if err == nil {
			res.Body.Close()
		}
	}()
	<-b.entered
	assert.Equal(t, http.StatusServiceUnavailable, apptest.Get(t, s, "/").StatusCode, "the cap is still 1")
	close(b.release)
	<-done
}

// source is a settable Source.
type source struct{ s atomic.Pointer[shed.Signals] }

func (f *source) set(s shed.Signals) { f.s.Store(&s) }
func (f *source) Sample() shed.Signals {
	if p := f.s.Load(); p != nil {
		return *p
	}
	return shed.Signals{}
}

func pressured(t *testing.T, src *source, opts ...shed.Option) (*app.Server, *shed.Shedder) {
	t.Helper()
	sh := shed.New(append([]shed.Option{shed.WithSource(src), shed.SampleInterval(time.Millisecond)}, opts...)...)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sh.Plugin())
	s.Get("/work", ok)
	s.Register(func(s *app.Server) error {
		s.Register(sh.Never())
		s.Get("/healthz", ok)
		return s.Register(func(s *app.Server) error { return s.Get("/healthz/deep", ok) })
	}, app.Name("probes"))
	require.NoError(t, s.Ready())
	return s, sh
}

func waitStatus(t *testing.T, s *app.Server, path string, status int) *apptest.Response {
	t.Helper()
	var r *apptest.Response
	require.Eventually(t, func() bool {
		r = apptest.Get(t, s, path)
		return r.StatusCode == status
	}, 10*time.Second, time.Millisecond)
	return r
}

func TestSignalsShed(t *testing.T) {
	t.Parallel()
	opts := []shed.Option{shed.MaxSchedLatency(50 * time.Millisecond), shed.MaxHeapFraction(0.9), shed.MaxGCFraction(0.5)}
	tests := []struct {
		name   string
		sig    shed.Signals
		reason shed.Reason
	}{
		{"scheduler latency", shed.Signals{SchedLatency: 80 * time.Millisecond}, shed.ReasonSchedLatency},
		{"heap near the limit", shed.Signals{HeapFraction: 0.95}, shed.ReasonHeap},
		{"collector hogging the CPU", shed.Signals{GCFraction: 0.6}, shed.ReasonGC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := &source{}
			s, sh := pressured(t, src, opts...)
			require.Equal(t, http.StatusOK, apptest.Get(t, s, "/work").StatusCode)
			src.set(tt.sig)
			r := waitStatus(t, s, "/work", http.StatusServiceUnavailable)
			assert.JSONEq(t, shedBody, r.Body)
			assert.Equal(t, "10", r.Header.Get("Retry-After"))
			assert.Equal(t, tt.reason, sh.Pressure())
			assert.ErrorContains(t, sh.Check(context.Background()), string(tt.reason), "readiness reports the shedding")
			assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/healthz").StatusCode, "a never-shed context")
			assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/healthz/deep").StatusCode, "and its descendants")
			src.set(shed.Signals{})
			waitStatus(t, s, "/work", http.StatusOK)
			assert.NoError(t, sh.Check(context.Background()))
		})
	}
}

func TestBelowThresholdsNothingSheds(t *testing.T) {
	t.Parallel()
	src := &source{}
	src.set(shed.Signals{SchedLatency: time.Second, HeapFraction: 0.99, GCFraction: 0.99})
	s, sh := pressured(t, src) // every threshold off
	for range 3 {
		assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/work").StatusCode)
	}
	assert.Equal(t, shed.Reason(""), sh.Pressure())
}

func TestOnPressure(t *testing.T) {
	t.Parallel()
	src := &source{}
	src.set(shed.Signals{SchedLatency: time.Second})
	var seen atomic.Value
	s, _ := pressured(t, src, shed.MaxSchedLatency(time.Millisecond), shed.RetryAfter(3*time.Second),
		shed.OnPressure(func(req *httpx.Request, rep *httpx.Reply, r shed.Reason) error {
			seen.Store(r)
			if req.Header("X-Priority") == "high" {
				return nil // let it through
			}
			return rep.Code(http.StatusTooManyRequests).Send(map[string]string{"busy": string(r)})
		}))
	r := apptest.Get(t, s, "/work")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.JSONEq(t, `{"busy":"scheduler latency"}`, r.Body)
	assert.Equal(t, shed.ReasonSchedLatency, seen.Load())
	assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/work", "X-Priority", "high").StatusCode)
}

func TestNoConnectionCloseOnHTTP2(t *testing.T) {
	t.Parallel()
	src := &source{}
	src.set(shed.Signals{GCFraction: 1})
	s, _ := pressured(t, src, shed.MaxGCFraction(0.5), shed.RetryAfter(3*time.Second))
	req := httptest.NewRequest(http.MethodGet, "/work", nil)
	req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/2.0", 2, 0
	r := apptest.Inject(t, s, req)
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	assert.Empty(t, r.Header.Get("Connection"), "HTTP/2 has no Connection header")
	assert.Equal(t, "3", r.Header.Get("Retry-After"))
}

func TestRuntimeSourceReadsTheRuntime(t *testing.T) {
	t.Parallel()
	src := shed.RuntimeSource()
	src.Sample()
	var keep [][]byte
	for i := range 1000 {
		keep = append(keep, make([]byte, 1024+i))
	}
	_ = keep
	sig := src.Sample()
	assert.GreaterOrEqual(t, sig.SchedLatency, time.Duration(0))
	assert.GreaterOrEqual(t, sig.GCFraction, 0.0)
	assert.LessOrEqual(t, sig.GCFraction, 1.0)
	assert.GreaterOrEqual(t, sig.HeapFraction, 0.0)
}

func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		plugin *app.Plugin
		want   string
	}{
		{"bulkhead of 0", shed.New().Bulkhead(0), "admits nothing"},
		{"retry-after below a second", shed.New(shed.RetryAfter(time.Millisecond)).Plugin(), "below a second"},
		{"zero interval", shed.New(shed.SampleInterval(0)).Plugin(), "not positive"},
		{"negative threshold", shed.New(shed.MaxGCFraction(-1)).Plugin(), "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.ErrorContains(t, app.New().Register(tt.plugin), tt.want)
		})
	}
}

func TestBulkheadsNest(t *testing.T) {
	t.Parallel()
	sh := shed.New()
	b := newBlocking()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(func(s *app.Server) error {
		s.Register(sh.Bulkhead(2))
		s.Get("/api/other", ok)
		s.Get("/api/slow", b.handle)
		return s.Register(func(s *app.Server) error {
			s.Register(sh.Bulkhead(1))
			return s.Get("/api/reports", b.handle)
		}, app.Name("reports"))
	}, app.Name("api"))
	require.NoError(t, s.Ready())

	var wg sync.WaitGroup
	hold := func(path string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := s.Inject(httptest.NewRequest(http.MethodGet, path, nil)); err == nil {
				res.Body.Close()
			}
		}()
		<-b.entered
	}
	hold("/api/reports")
	assert.Equal(t, http.StatusServiceUnavailable, apptest.Get(t, s, "/api/reports").StatusCode, "the inner cap of 1 is taken")
	hold("/api/slow")
	assert.Equal(t, http.StatusServiceUnavailable, apptest.Get(t, s, "/api/other").StatusCode, "the outer cap of 2 counts both")
	close(b.release)
	wg.Wait()
	assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/api/other").StatusCode)
}

func TestShedOverASocketClosesTheConnection(t *testing.T) {
	t.Parallel()
	src := &source{}
	src.set(shed.Signals{SchedLatency: time.Second})
	s, _ := pressured(t, src, shed.MaxSchedLatency(time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, s.Close(ctx))
		assert.NoError(t, <-served)
	})
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	res, err := client.Get("http://" + ln.Addr().String() + "/work")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.True(t, res.Close, "the server closes the connection after the 503")
	res, err = client.Get("http://" + ln.Addr().String() + "/healthz")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.False(t, res.Close, "a never-shed answer keeps it")
}

func TestReadinessReportsShedding(t *testing.T) {
	t.Parallel()
	src := &source{}
	_, sh := pressured(t, src, shed.MaxGCFraction(0.5)) // its server samples the signals
	checks := health.New()
	admin := apptest.New(t, app.WithoutRequestLogging())
	admin.Register(checks.Check("load", sh.Check, health.Interval(time.Millisecond)))
	admin.Register(checks.Routes())
	require.NoError(t, admin.Ready())
	waitStatus(t, admin, "/readyz", http.StatusOK)
	src.set(shed.Signals{GCFraction: 0.9})
	r := waitStatus(t, admin, "/readyz", http.StatusServiceUnavailable)
	assert.JSONEq(t, `{"status":"failing","checks":{"load":"shedding load: gc cpu"}}`, r.Body)
	assert.Equal(t, http.StatusOK, apptest.Get(t, admin, "/healthz").StatusCode, "liveness is not load")
}

func TestShedFollowsTheServersErrorFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []app.Option
		ctype string
		body  string
	}{
		{"default", nil, httpx.ContentTypeJSON, shedBody},
		{"problem details", []app.Option{app.WithProblemDetails()}, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"Service under pressure","instance":"/work"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := &source{}
			src.set(shed.Signals{SchedLatency: time.Second})
			sh := shed.New(shed.WithSource(src), shed.MaxSchedLatency(time.Millisecond))
			s := apptest.New(t, append(tt.opts, app.WithoutRequestLogging())...)
			s.Register(sh.Plugin())
			s.Get("/work", ok)
			require.NoError(t, s.Ready())
			r := waitStatus(t, s, "/work", http.StatusServiceUnavailable)
			assert.Equal(t, tt.body, r.Body, "byte for byte")
			assert.Equal(t, tt.ctype, r.Header.Get("Content-Type"))
			assert.Equal(t, "10", r.Header.Get("Retry-After"))
		})
	}
}
