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
// A shed request gets 503 in Burrow's error shape with Retry-After and,
// on HTTP/1.x, Connection: close (a client retrying elsewhere should not
// come back on this connection):
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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
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
	sampling bool
}

// bulkheads numbers the bulkheads of the process: each one's request
// decorator has a name of its own, whichever shedder made it.
var bulkheads atomic.Int64

// Option configures New.
type Option func(*Shedder)

// MaxSchedLatency sheds while the scheduler's 99th-percentile latency is
// above d (0, the default, is off).
func MaxSchedLatency(d time.Duration) Option { return func(s *Shedder) { s.maxSched = d } }

// MaxHeapFraction sheds while the live heap is above f of GOMEMLIMIT (0,
// the default, is off; so is a process without a limit).
func MaxHeapFraction(f float64) Option { return func(s *Shedder) { s.maxHeap = f } }

// MaxGCFraction sheds while the garbage collector takes more than f of
// the CPU (0, the default, is off).
func MaxGCFraction(f float64) Option { return func(s *Shedder) { s.maxGC = f } }

// SampleInterval sets how often the signals are read
// (DefaultSampleInterval).
func SampleInterval(d time.Duration) Option { return func(s *Shedder) { s.interval = d } }

// WithSource replaces runtime/metrics as the source of the signals.
func WithSource(src Source) Option { return func(s *Shedder) { s.source = src } }

// RetryAfter sets the Retry-After of a shed request (DefaultRetryAfter;
// whole seconds, at least one).
func RetryAfter(d time.Duration) Option {
	return func(s *Shedder) {
		secs := int64(d / time.Second)
		if secs < 1 {
			s.fail(fmt.Errorf("shed.RetryAfter: %v is below a second", d))
		}
		s.retryAfter = []string{strconv.FormatInt(secs, 10)}
	}
}

// OnPressure replaces the 503 a shed request gets.
func OnPressure(fn PressureFunc) Option { return func(s *Shedder) { s.onPressure = fn } }

func (s *Shedder) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// New returns a shedder; its plugins report invalid options.
func New(opts ...Option) *Shedder {
	s := &Shedder{interval: DefaultSampleInterval, retryAfter: []string{"10"}}
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
		twice := s.sampling
		s.sampling = true
		s.mu.Unlock()
		if twice {
			return errors.New("shed: the shedder's Plugin is registered twice")
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

// Bulkhead returns a wrapped plugin capping the requests of the
// registering context and its descendants (but Never's) in flight at
// once to n: the request beyond is shed at once, it does not queue.
func (s *Shedder) Bulkhead(n int) *app.Plugin {
	var inFlight atomic.Int64
	name := "shed.inflight." + strconv.FormatInt(bulkheads.Add(1), 10)
	var err error
	if n < 1 {
		err = fmt.Errorf("shed.Bulkhead: a cap of %d admits nothing", n)
	}
	return app.Wrap(func(srv *app.Server) error {
		if err := s.watchRoutes(srv); err != nil {
			return err
		}
		// The decorator marks the requests this bulkhead counted, so the
		// onResponse hook lets go of exactly those, whoever answered.
		if err := srv.DecorateRequest(name, false); err != nil {
			return err
		}
		if err := srv.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
			if s.isExempt(req) {
				return nil
			}
			if inFlight.Add(1) > int64(n) {
				inFlight.Add(-1)
				return s.shed(req, rep, ReasonInFlight)
			}
			return req.SetDecorator(name, true)
		}); err != nil {
			return err
		}
		return srv.AddHook(app.OnResponse, func(req *httpx.Request) {
			if v, _ := req.Decorator(name); v == true {
				inFlight.Add(-1)
			}
		})
	}, app.Name("shed-bulkhead"), app.Check(func() error { return err }))
}

// Never returns a wrapped plugin exempting the registering context and
// its descendants from the shedder's plugins: health probes, metrics,
// an admin context.
func (s *Shedder) Never() *app.Plugin {
	return app.Wrap(func(srv *app.Server) error {
		s.mu.Lock()
		s.never = append(s.never, srv.Path())
		s.mu.Unlock()
		return nil
	}, app.Name("shed-never"))
}

// watchRoutes records, as srv's routes compile, which contexts are
// never shed (every Never body has run by then).
func (s *Shedder) watchRoutes(srv *app.Server) error {
	return srv.OnRoute(func(r *app.RouteSpec) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, p := range s.never {
			if r.Context == p || strings.HasPrefix(r.Context, p+" > ") {
				m := maps.Clone(*s.exempt.Load())
				m[r.Context] = true
				s.exempt.Store(&m)
				break
			}
		}
		return nil
	})
}

func (s *Shedder) isExempt(req *httpx.Request) bool {
	return (*s.exempt.Load())[req.Route().Context]
}

var jsonType = []string{"application/json; charset=utf-8"}
var closeConn = []string{"close"}

var shedBody = func() json.RawMessage {
	b, _ := json.Marshal(httpx.ErrorBody{StatusCode: http.StatusServiceUnavailable,
		Error: http.StatusText(http.StatusServiceUnavailable), Message: "Service under pressure"})
	return b
}()

// shed answers req 503, or lets OnPressure answer.
func (s *Shedder) shed(req *httpx.Request, rep *httpx.Reply, r Reason) error {
	if s.onPressure != nil {
		return s.onPressure(req, rep, r)
	}
	h := rep.Header()
	h["Retry-After"] = s.retryAfter
	h["Content-Type"] = jsonType
	if req.Raw().ProtoMajor == 1 {
		h["Connection"] = closeConn
	}
	return rep.Code(http.StatusServiceUnavailable).Send(shedBody)
}
