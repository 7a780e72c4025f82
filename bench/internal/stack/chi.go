package stack

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"
	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	rscors "github.com/rs/cors"
	unrolled "github.com/unrolled/secure"

	"github.com/burrow-go/burrow/plugins/prometheus"
	"github.com/burrow-go/burrow/plugins/secure"
)

// Chi is the route on chi, behind the middleware of the libraries a chi
// service uses, and the registry its metrics are in.
type Chi struct {
	Handler  http.Handler
	Registry *prom.Registry
}

// UnrolledOptions are unrolled/secure's options closest to the secure
// plugin's defaults (helmet's set): all but Origin-Agent-Cluster and
// X-Download-Options, which unrolled does not send. STS is forced, as
// the plugin sends it over plain HTTP too.
func UnrolledOptions() unrolled.Options {
	return unrolled.Options{
		ContentTypeNosniff: true, FrameDeny: true, CustomFrameOptionsValue: "SAMEORIGIN",
		BrowserXssFilter: true, CustomBrowserXssValue: "0",
		ReferrerPolicy:          "no-referrer",
		CrossOriginOpenerPolicy: "same-origin", CrossOriginResourcePolicy: "same-origin",
		XDNSPrefetchControl: "off", XPermittedCrossDomainPolicies: "none",
		ContentSecurityPolicy: secure.DefaultCSP,
		STSSeconds:            31536000, STSIncludeSubdomains: true, ForceSTSHeader: true,
	}
}

// NewChi assembles the chi stack. Its metrics are those of the
// prometheus plugin as promhttp's instrumentation makes them: a request
// counter and a duration histogram (the plugin's classic and native
// buckets) labelled method, code and the route's pattern, and a gauge of
// the requests in flight, in a registry of its own with the Go runtime
// and process collectors.
func NewChi() (*Chi, error) {
	reg := prom.NewRegistry()
	requests := prom.NewCounterVec(prom.CounterOpts{
		Name: "http_server_requests_total", Help: "Requests served, by method, route pattern and status.",
	}, []string{"method", "code", "route"})
	duration := prom.NewHistogramVec(prom.HistogramOpts{
		Name: "http_server_request_duration_seconds", Help: "Time to serve a request, by method, route pattern and status.",
		Buckets:                     prometheus.DefaultBuckets,
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160, NativeHistogramMinResetDuration: time.Hour,
	}, []string{"method", "code", "route"})
	active := prom.NewGauge(prom.GaugeOpts{Name: "http_server_active_requests", Help: "Requests being served."})
	if err := registerAll(reg, requests, duration, active, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, err
	}
	gz, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.DefaultCompression))
	if err != nil {
		return nil, err
	}
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		// The route label is read once chi has routed: after next.
		route := promhttp.WithLabelFromCtx("route", func(ctx context.Context) string { return chi.RouteContext(ctx).RoutePattern() })
		return promhttp.InstrumentHandlerInFlight(active,
			promhttp.InstrumentHandlerDuration(duration, promhttp.InstrumentHandlerCounter(requests, next, route), route))
	})
	r.Use(rscors.New(rscors.Options{AllowedOrigins: []string{Origin}}).Handler)
	r.Use(unrolled.New(UnrolledOptions()).Handler)
	// httprate's documented form for a server clients reach directly
	// (its LimitByIP is deprecated for it).
	r.Use(middleware.ClientIPFromRemoteAddr)
	r.Use(httprate.LimitBy(PerIP, time.Minute, func(r *http.Request) (string, error) {
		return httprate.CanonicalizeIP(middleware.GetClientIP(r.Context())), nil
	}))
	r.Use(func(next http.Handler) http.Handler { return gz(next) })
	r.Get(Path, func(w http.ResponseWriter, _ *http.Request) {
		b, err := json.Marshal(Answer)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(b) //nolint:errcheck // the client is gone
	})
	return &Chi{Handler: r, Registry: reg}, nil
}

func registerAll(reg *prom.Registry, cs ...prom.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
