package health

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
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

type check struct {
	name     string
	fn       func(context.Context) error
	interval time.Duration
	timeout  time.Duration
	state    atomic.Pointer[string]
	first    chan struct{} // closed when the first run ends
	ran      sync.Once
}

// CheckOption configures one check.
type CheckOption func(*check)

// Interval sets how often the check runs (DefaultInterval).
func Interval(d time.Duration) CheckOption { return func(c *check) { c.interval = d } }

// Timeout bounds one run (DefaultTimeout): fn's context ends then, and
// the check fails at once ("check timed out after …"), whether or not fn
// returns. A run that ignores its context is not abandoned for a new
// one: the next run starts after it returns, and the check stays failing
// until then.
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
		return s.OnClose(func(closing context.Context) error {
			cancel()
			if !started {
				return nil
			}
			select {
			case <-done:
				return nil
			case <-closing.Done():
				// A run that ignores its context would hold Close past its
				// deadline; it is left behind, still running.
				return fmt.Errorf("health: check %q still running at close: %w", name, closing.Err())
			}
		})
	}, app.Name("health-check:"+name), app.Check(func() error { return err }))
}

// run runs c now and then every interval until ctx ends, and returns
// once the last run has returned.
func (c *check) run(ctx context.Context, log *zap.Logger, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		if !c.once(ctx, log) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// once runs the check on its own goroutine and keeps its result. A run
// still going at its time-out fails the check at once, and the next run
// starts only after it returns: a check that ignores its context can
// neither keep a stale "ok" nor pile up goroutines. once reports false
// when parent ended (the server closes).
func (c *check) once(parent context.Context, log *zap.Logger) bool {
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	result := make(chan error, 1) // buffered: a run returning late never blocks
	go func() { result <- safely(ctx, c.fn) }()
	var err error
	select {
	case err = <-result:
	case <-ctx.Done():
		select {
		case err = <-result:
		default:
			if parent.Err() == nil {
				c.keep(c.timedOut(), log)
			}
			<-result // Close's own deadline bounds how long closing waits here
			return parent.Err() == nil
		}
	}
	if parent.Err() != nil {
		return false // closing: the result says nothing about the dependency
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = c.timedOut() // one state for a time-out, however the run ended
	}
	c.keep(err, log)
	return true
}

func (c *check) timedOut() error {
	return fmt.Errorf("check timed out after %v: %w", c.timeout, context.DeadlineExceeded)
}

// keep records the result of a run; a change of state is logged.
func (c *check) keep(err error, log *zap.Logger) {
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
