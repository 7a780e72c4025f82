// Package health serves liveness and readiness probes, and runs the
// checks readiness is made of where their dependencies are provided: the
// plugin that opens the database registers the database's check, so the
// check exists exactly when the dependency does.
//
//	checks := health.New()
//	s.Register(func(s *app.Server) error { // the database plugin
//		db := open()
//		s.Register(checks.Check("db", db.PingContext))
//		...
//	})
//	s.Register(checks.Routes()) // GET/HEAD /healthz and /readyz
//
// /healthz is liveness: 200 while the process serves, whatever its
// dependencies say (restarting a process because its database is down
// fixes nothing). /readyz is readiness: 200 when every check passed its
// last run and the server is not closing, else 503, naming each check's
// state:
//
//	{"status":"failing","checks":{"db":"ok","redis":"dial tcp 127.0.0.1:6379: connect: connection refused"}}
//
// Checks run on their own goroutines, on an interval with a time-out, from
// Ready until Close; a probe reads their last results and never waits for
// a dependency. A check that has not finished its first run is failing
// ("pending"). Routes may be registered in any context, of this server
// or another (an admin listener): the checks are shared through the
// *Checks value.
package health

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Defaults of a check.
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 2 * time.Second
)

// maxReason bounds how much of a check's error a probe repeats.
const maxReason = 256

// pending is a check's state before its first run ends.
const pending = "pending"

// Checks is a set of named checks and the probes that report them.
type Checks struct {
	mu      sync.Mutex
	checks  map[string]*check
	servers []*app.Server // whose closing fails readiness: those the checks and probes were registered on
}

type check struct {
	name     string
	fn       func(context.Context) error
	interval time.Duration
	timeout  time.Duration
	state    atomic.Pointer[string]
	first    chan struct{} // closed when the first run ends
	ran      sync.Once
}

// New returns an empty set of checks.
func New() *Checks { return &Checks{checks: map[string]*check{}} }

// CheckOption configures one check.
type CheckOption func(*check)

// Interval sets how often the check runs (DefaultInterval).
func Interval(d time.Duration) CheckOption { return func(c *check) { c.interval = d } }

// Timeout bounds one run (DefaultTimeout): a check that takes longer
// fails with context.DeadlineExceeded, through its context.
func Timeout(d time.Duration) CheckOption { return func(c *check) { c.timeout = d } }

// ErrDuplicateCheck is returned for a second check of one name.
var ErrDuplicateCheck = errors.New("health: duplicate check")

// Check returns a wrapped plugin adding the check called name to the set:
// register it where the dependency fn checks is provided. fn gets a
// context ending at the time-out. The check runs from Ready, at once and
// then every interval, until Close.
func (cs *Checks) Check(name string, fn func(context.Context) error, opts ...CheckOption) *app.Plugin {
	c := &check{name: name, fn: fn, interval: DefaultInterval, timeout: DefaultTimeout, first: make(chan struct{})}
	for _, o := range opts {
		o(c)
	}
	p := pending
	c.state.Store(&p)
	var err error
	switch {
	case name == "":
		err = errors.New("health: a check needs a name")
	case fn == nil:
		err = fmt.Errorf("health: check %q: nil function", name)
	case c.interval <= 0 || c.timeout <= 0:
		err = fmt.Errorf("health: check %q: interval and time-out must be positive", name)
	}
	return app.Wrap(func(s *app.Server) error {
		cs.mu.Lock()
		_, dup := cs.checks[name]
		if !dup {
			cs.checks[name] = c
			cs.servers = append(cs.servers, s)
		}
		cs.mu.Unlock()
		if dup {
			return fmt.Errorf("%w %q", ErrDuplicateCheck, name)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		started := false
		log := s.Log()
		if err := s.OnReady(func() error {
			started = true
			go c.run(ctx, log, done)
			return nil
		}); err != nil {
			cancel()
			return err
		}
		return s.OnClose(func(context.Context) error {
			cancel()
			if started {
				<-done
			}
			return nil
		})
	}, app.Name("health-check:"+name), app.Check(func() error { return err }))
}

// run runs c now and then every interval until ctx ends.
func (c *check) run(ctx context.Context, log *zap.Logger, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		c.once(ctx, log)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// once runs the check and keeps its result; a change is logged.
func (c *check) once(parent context.Context, log *zap.Logger) {
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	err := safely(ctx, c.fn)
	cancel()
	if parent.Err() != nil {
		return // closing: the result says nothing about the dependency
	}
	state := "ok"
	if err != nil {
		state = err.Error()
		if len(state) > maxReason {
			state = state[:maxReason] + "…"
		}
	}
	old := c.state.Swap(&state)
	c.ran.Do(func() { close(c.first) })
	if *old != state {
		if err != nil {
			log.Warn("health check failing", zap.String("check", c.name), zap.Error(err))
		} else if *old != pending {
			log.Info("health check passes again", zap.String("check", c.name))
		}
	}
}

// safely runs fn, turning a panic into an error.
func safely(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("check panicked: %v", v)
		}
	}()
	return fn(ctx)
}

// Wait waits until every check has finished its first run, or ctx
// ends: a test, or a start-up that wants its first probe to tell the
// truth, waits on it.
func (cs *Checks) Wait(ctx context.Context) error {
	cs.mu.Lock()
	list := slices.Collect(maps.Values(cs.checks))
	cs.mu.Unlock()
	for _, c := range list {
		select {
		case <-c.first:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Report is the body of /readyz.
type Report struct {
	// Status is "ready" or "failing".
	Status string `json:"status"`
	// Checks maps each check to "ok", "pending" or its last error.
	Checks map[string]string `json:"checks"`
}

// Report returns the checks' last results; ready is true when all
// passed and no server the checks or the probes were registered on is
// closing (or not started yet).
func (cs *Checks) Report() (r Report, ready bool) {
	cs.mu.Lock()
	list := slices.Collect(maps.Values(cs.checks))
	servers := slices.Clone(cs.servers)
	cs.mu.Unlock()
	r.Checks = make(map[string]string, len(list))
	ready = true
	for _, c := range list {
		st := *c.state.Load()
		r.Checks[c.name] = st
		ready = ready && st == "ok"
	}
	for _, s := range servers {
		if !s.IsReady() {
			r.Checks["server"] = "closing"
			ready = false
		}
	}
	r.Status = "failing"
	if ready {
		r.Status = "ready"
	}
	return r, ready
}

// RoutesOption configures Routes.
type RoutesOption func(*routes)

type routes struct{ live, ready string }

// Paths sets the probes' paths ("/healthz", "/readyz").
func Paths(live, ready string) RoutesOption {
	return func(r *routes) { r.live, r.ready = live, ready }
}

// Routes returns a wrapped plugin serving the probes, GET and HEAD, in
// the context that registers it. Readiness fails too while that server,
// or one a check was registered on, closes (Close turns IsReady false
// first, so a load balancer stops sending before the drain).
func (cs *Checks) Routes(opts ...RoutesOption) *app.Plugin {
	r := routes{live: "/healthz", ready: "/readyz"}
	for _, o := range opts {
		o(&r)
	}
	return app.Wrap(func(s *app.Server) error {
		cs.mu.Lock()
		cs.servers = append(cs.servers, s)
		cs.mu.Unlock()
		if err := s.Get(r.live, func(rep *httpx.Reply) error {
			return rep.Send(map[string]string{"status": "ok"})
		}); err != nil {
			return err
		}
		return s.Get(r.ready, func(rep *httpx.Reply) error {
			report, ready := cs.Report()
			if !ready {
				rep.Code(http.StatusServiceUnavailable)
			}
			rep.Header()["Cache-Control"] = noStore
			return rep.Send(report)
		})
	}, app.Name("health"))
}

var noStore = []string{"no-store"}
