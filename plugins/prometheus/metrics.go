package prometheus

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// PluginName is the name the plugin registers under.
const PluginName = "burrow-prometheus"

// Metrics are one server's request metrics and their registry.
type Metrics struct {
	cfg        config
	requests   *prom.CounterVec
	duration   *prom.HistogramVec
	active     *prom.GaugeVec
	registered atomic.Bool
	wsState
}

// New makes the metrics and registers them, with the Go runtime and
// process collectors, in a registry of their own (see Registry).
func New(opts ...Option) *Metrics {
	c := newConfig(opts)
	labels := []string{"method", "route", "status", "context"}
	m := &Metrics{
		cfg: c,
		requests: prom.NewCounterVec(prom.CounterOpts{
			Name:        "http_server_requests_total",
			Help:        "Requests served, by method, route pattern, status and context.",
			ConstLabels: c.constLabels,
		}, labels),
		duration: prom.NewHistogramVec(prom.HistogramOpts{
			Name:                            "http_server_request_duration_seconds",
			Help:                            "Time from routing to the end of the response, by method, route pattern, status and context.",
			ConstLabels:                     c.constLabels,
			Buckets:                         c.buckets,
			NativeHistogramBucketFactor:     c.nativeFactor,
			NativeHistogramMaxBucketNumber:  c.maxNativeBkts,
			NativeHistogramMinResetDuration: nativeMinReset,
		}, labels),
		active: prom.NewGaugeVec(prom.GaugeOpts{
			Name:        "http_server_active_requests",
			Help:        "Requests being served, by context.",
			ConstLabels: c.constLabels,
		}, []string{"context"}),
	}
	c.registry.MustRegister(m.requests, m.duration, m.active)
	if c.runtime {
		c.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry is the registry the metrics are in, for the application's
// own.
func (m *Metrics) Registry() *prom.Registry { return m.cfg.registry }

// Handler is the scrape handler: the registry in Prometheus' text format,
// or OpenMetrics (with exemplars) when the scraper asks for it. Mount it
// on any route (an admin listener's, behind its own authentication):
// its requests are observed like any other.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.cfg.registry, promhttp.HandlerOpts{
		EnableOpenMetrics:   true,
		MaxRequestsInFlight: 4, // a scrape gathers everything: a flood of them is refused with 503
	})
}

// Plugin observes the requests of the context it is registered in and of
// its descendants (it is wrapped: registered in a plugin's body, it
// observes that plugin's context). A Metrics observes one context:
// registering its plugin a second time fails, as it would count the
// requests of the overlap twice.
func (m *Metrics) Plugin() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if !m.registered.CompareAndSwap(false, true) {
			return errTwice
		}
		return s.Observe(app.Observer{Start: m.start, End: m.end})
	}, app.Name(PluginName), app.Supports("0.x"))
}

func (m *Metrics) start(o app.Observation) context.Context {
	if m.cfg.skip == nil || !m.cfg.skip(o) {
		m.active.WithLabelValues(o.Context).Inc()
	}
	return nil
}

func (m *Metrics) end(o app.Observation) {
	if m.cfg.skip != nil && m.cfg.skip(o) {
		return
	}
	m.active.WithLabelValues(o.Context).Dec()
	route := o.Route
	switch o.Match {
	case httpx.NoRoute:
		route = m.cfg.unmatched
	case httpx.MethodNotAllowed:
		route = m.cfg.notAllowed
	}
	method, status := methodLabel(o.Request.Method), statusLabel(o.Status)
	if m.cfg.groupStatus {
		status = statusClass(o.Status)
	}
	count := m.requests.WithLabelValues(method, route, status, o.Context)
	took := m.duration.WithLabelValues(method, route, status, o.Context)
	if ex := m.exemplar(o.Request.Context()); len(ex) > 0 {
		count.(prom.ExemplarAdder).AddWithExemplar(1, ex)
		took.(prom.ExemplarObserver).ObserveWithExemplar(o.Duration.Seconds(), ex)
		return
	}
	count.Inc()
	took.Observe(o.Duration.Seconds())
}

func (m *Metrics) exemplar(ctx context.Context) prom.Labels {
	if m.cfg.exemplar == nil {
		return nil
	}
	return m.cfg.exemplar(ctx)
}

// methodLabel is method when it is a standard one, else "_OTHER": the
// method is the client's to choose, and a label of any token would let
// it make series without end.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "_OTHER"
}

// statusTexts are the labels of the statuses 100 to 599, made once.
var statusTexts = func() (t [500]string) {
	for i := range t {
		t[i] = strconv.Itoa(i + 100)
	}
	return t
}()

func statusLabel(status int) string {
	if status >= 100 && status < 600 {
		return statusTexts[status-100]
	}
	return strconv.Itoa(status)
}

var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(status int) string {
	if status >= 100 && status < 600 {
		return statusClasses[status/100-1]
	}
	return strconv.Itoa(status)
}
