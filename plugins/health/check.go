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
