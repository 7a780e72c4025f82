package deadline

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// sweeper arms, shortly before they come, the read deadlines far ahead
// that the connections of one listener leave to it, so that those need
// no timer of their own. net/http sets the idle time-out after every
// request, right after aborting its background read with a deadline long
// past, which disarms the connection: armed by the next read, the idle
// deadline would cost a timer started and stopped per request, and two
// readings of the clock, for a deadline tens of seconds out that the next
// request moves again long before it comes. A connection instead clears
// what is armed (no timer, no clock) and leaves the deadline asked for to
// the sweeper, which every tick arms those due within ahead: the timer
// then fires at the deadline itself, as it would have.
//
// A deadline is left to the sweeper only when it is at least loose past
// the clock the sweeper last read, so that a tick comes between the
// moment it is set and the moment it must be armed. A sweeper late by
// more than a tick (a machine starved of CPU) arms late by as much, as a
// timer would fire late.
//
// The sweeper ticks only while it watches connections, and stops with
// its listener: the connections still open then arm what they were
// asked for, and go on on their own.
type sweeper struct {
	// every, ahead and loose are in nanoseconds: the tick; how far ahead
	// a tick arms; how far ahead a deadline must be to be left to it.
	every, ahead, loose int64

	now atomic.Int64 // the clock at the last tick or connection, Unix ns

	mu      sync.Mutex
	conns   map[*Conn]struct{}
	started bool
	stopped bool
	wake    chan struct{} // a connection came while none was watched
	quit    chan struct{}
	done    chan struct{}
}

// sweepEvery is a listener's sweeper's tick: a read deadline at least
// four ticks (two seconds) away is left to it, and each tick arms those
// due within two.
const sweepEvery = 500 * time.Millisecond

func newSweeper(every time.Duration) *sweeper {
	return &sweeper{
		every: int64(every), ahead: 2 * int64(every), loose: 4 * int64(every),
		conns: make(map[*Conn]struct{}),
		wake:  make(chan struct{}, 1),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
	}
}

// watch wraps tcp in a Conn the sweeper watches, or, once the sweeper is
// stopped, in one on its own.
func (s *sweeper) watch(tcp *net.TCPConn) *Conn {
	c := NewConn(tcp)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return c
	}
	c.sweeper, c.watched = s, true
	s.now.Store(time.Now().UnixNano())
	if len(s.conns) == 0 {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	s.conns[c] = struct{}{}
	if !s.started {
		s.started = true
		go s.run()
	}
	return c
}

// forget stops watching c, closed or handed over.
func (s *sweeper) forget(c *Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *sweeper) run() {
	defer close(s.done)
	tick := time.NewTicker(time.Duration(s.every))
	defer tick.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-tick.C:
		}
		if s.sweep() {
			continue
		}
		// Nothing to watch: no ticks until a connection comes.
		tick.Stop()
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		tick.Reset(time.Duration(s.every))
	}
}

// sweep arms the deadlines due within ahead, and reports whether any
// connection is watched.
func (s *sweeper) sweep() bool {
	now := time.Now().UnixNano()
	s.now.Store(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.sweep(now + s.ahead)
	}
	return len(s.conns) > 0
}

// stop ends the sweeper; the connections it watched arm what they were
// asked for, and are on their own from then on.
func (s *sweeper) stop() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	conns, started := s.conns, s.started
	s.conns = nil
	s.mu.Unlock()
	close(s.quit)
	if started {
		<-s.done
	}
	for c := range conns {
		c.unwatch()
	}
}
