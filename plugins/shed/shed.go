// Package shed answers 503 before a server falls over: per-context
// in-flight caps (a context is a bulkhead: /reports sheds while /healthz
// still answers) and server-wide signals from runtime/metrics — the
// scheduler's latency, the live heap against GOMEMLIMIT, the garbage
// collector's share of the CPU — sampled on an interval.
//
//	sh := shed.New(shed.MaxSchedLatency(50 * time.Millisecond))
//	s.Register(sh.Plugin())                   // server-wide signals, here and below
//	s.Register(func(s *app.Server) error {
//		s.Register(sh.Bulkhead(32))           // at most 32 reports at once
//		return app.Get(s, "/reports", reports)
//	})
//	s.Register(func(s *app.Server) error {
//		s.Register(sh.Never())                // probes are never shed
//		return s.Register(checks.Routes())
//	})
//
// A shed request gets 503 in the server's error format (problem details
// under app.WithProblemDetails) with Retry-After and, on HTTP/1.x,
// Connection: close (a client retrying elsewhere should not come back on
// this connection); by default:
//
//	{"statusCode":503,"error":"Service Unavailable","message":"Service under pressure"}
//
// OnPressure replaces that answer (or lets chosen requests through).
// Check reports the pressure to the health plugin's readiness, so a load
// balancer sends less while the process recovers. Both run as onRequest
// hooks of the context that registers them, so an ancestor's hooks run
// first: register the plugin early, at the root.
package shed

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Defaults.
const (
	DefaultSampleInterval = time.Second
	DefaultRetryAfter     = 10 * time.Second
)

// Reason says why a request is shed.
type Reason string

// Reasons.
const (
	ReasonInFlight     Reason = "in-flight"
	ReasonSchedLatency Reason = "scheduler latency"
	ReasonHeap         Reason = "heap"
	ReasonGC           Reason = "gc cpu"
)

// PressureFunc answers a request shed for reason; it may answer (the
// reply is then sent as it wrote it) or return without answering to let
// the request through.
type PressureFunc func(req *httpx.Request, rep *httpx.Reply, reason Reason) error

// Shedder holds the signals, thresholds and never-shed contexts its
// plugins share.
type Shedder struct {
	source     Source
	interval   time.Duration
	maxSched   time.Duration
	maxHeap    float64
	maxGC      float64
	retryAfter []string
	onPressure PressureFunc
	err        error

	pressure atomic.Pointer[Reason] // nil: none
	signals  atomic.Pointer[Signals]

	mu       sync.Mutex
	never    []string                        // context paths registered with Never
	exempt   atomic.Pointer[map[string]bool] // context path → never shed; replaced, never changed, as routes compile
	sampling string                          // the context whose Plugin samples; "" before one is registered
}

// New returns a shedder; its plugins report invalid options.
func New(opts ...Option) *Shedder {
	s := &Shedder{interval: DefaultSampleInterval, retryAfter: []string{strconv.FormatInt(int64(DefaultRetryAfter/time.Second), 10)}}
	s.exempt.Store(&map[string]bool{})
	for _, o := range opts {
		o(s)
	}
	if s.source == nil {
		s.source = RuntimeSource()
	}
	switch {
	case s.interval <= 0:
		s.fail(fmt.Errorf("shed.SampleInterval: %v is not positive", s.interval))
	case s.maxSched < 0 || s.maxHeap < 0 || s.maxGC < 0:
		s.fail(errors.New("shed: a threshold is negative"))
	}
	return s
}

// Pressure returns why the server sheds, or "" when it does not (by the
// last sample).
func (s *Shedder) Pressure() Reason {
	if r := s.pressure.Load(); r != nil {
		return *r
	}
	return ""
}

// Signals returns the last sample.
func (s *Shedder) Signals() Signals {
	if p := s.signals.Load(); p != nil {
		return *p
	}
	return Signals{}
}

// Check fails while the server sheds: give it to the health plugin, so
// readiness reports the pressure.
func (s *Shedder) Check(context.Context) error {
	if r := s.Pressure(); r != "" {
		return fmt.Errorf("shedding load: %s", r)
	}
	return nil
}

// sample reads the source once and updates the pressure.
func (s *Shedder) sample() {
	sig := s.source.Sample()
	s.signals.Store(&sig)
	var r Reason
	switch {
	case s.maxSched > 0 && sig.SchedLatency > s.maxSched:
		r = ReasonSchedLatency
	case s.maxHeap > 0 && sig.HeapFraction > s.maxHeap:
		r = ReasonHeap
	case s.maxGC > 0 && sig.GCFraction > s.maxGC:
		r = ReasonGC
	}
	if r == "" {
		s.pressure.Store(nil)
	} else {
		s.pressure.Store(&r)
	}
}

// Plugin returns the wrapped plugin that sheds the requests of the
// registering context and its descendants (but Never's) while a signal
// is over its threshold. It samples from Ready until Close; register it
// once.
func (s *Shedder) Plugin() *app.Plugin {
	return app.Wrap(func(srv *app.Server) error {
		if err := s.watchRoutes(srv); err != nil {
			return err
		}
		s.mu.Lock()
		first := s.sampling
		if first == "" {
			s.sampling = srv.Path()
		}
		s.mu.Unlock()
		if first != "" {
			return fmt.Errorf("the shedder's Plugin is already registered in %s: one shedder samples once; "+
				"register its Plugin in the context nearest to every route it guards, and its Never plugin in those it must not shed", first)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		started := false
		if err := srv.OnReady(func() error {
			s.sample()
			started = true
			go s.run(ctx, done)
			return nil
		}); err != nil {
			cancel()
			return err
		}
		if err := srv.OnClose(func(context.Context) error {
			cancel()
			if started {
				<-done
			}
			return nil
		}); err != nil {
			return err
		}
		if err := srv.DeclareGuard(app.Guard{Kind: app.GuardShed}); err != nil {
			return err
		}
		return srv.AddHook(app.OnRequest, s.onRequest)
	}, app.Name("shed"), app.Check(func() error { return s.err }))
}

func (s *Shedder) run(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sample()
		}
	}
}

func (s *Shedder) onRequest(req *httpx.Request, rep *httpx.Reply) error {
	r := s.pressure.Load()
	if r == nil || s.isExempt(req) {
		return nil
	}
	return s.shed(req, rep, *r)
}
