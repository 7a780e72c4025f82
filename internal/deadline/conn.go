package deadline

import (
	"errors"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is a TCP connection whose read deadline costs little to move later
// or clear, and whose write deadline costs little to clear. net/http and
// Burrow set them several times a request (the idle, header and body
// time-outs on the read side, the reply's on the write side, each cleared
// between requests), and each time the runtime re-arms or stops a timer.
// Conn keeps the deadline asked for and arms the connection only when it
// must: a read deadline moved later, or a deadline cleared, leaves the
// earlier one armed, and when that one fires, the read or write it
// interrupts checks the deadline asked for, arms that one and goes on.
// So a read or a write fails at the deadline last set, exactly as on the
// connection underneath (never later: a deadline moved sooner is armed at
// once and interrupts a read or write under way).
//
// A read deadline at least two seconds away, with nothing armed, is left
// to the listener's sweeper (see sweeper), which arms it shortly before
// it comes, so that it fires as exactly (unless the sweeper is starved of
// CPU for longer than its half-second tick): net/http's idle time-out,
// set after every request, then takes no timer.
//
// A read deadline moved sooner while no read is under way is armed by the
// next read, before it waits: net/http sets the header deadline after the
// first bytes of a request arrived, and the body's follows; both are
// usually read from its buffer, never from the connection. A read under
// way is interrupted at once, as on the connection underneath.
//
// A write deadline moved later is armed at once all the same, except a
// reply's (SetReply) that the deadline armed for a reply before comes at
// most ReplySlack before: that one is kept, and is the deadline from
// then on, as if it had been set. A write
// that goes on after an earlier deadline tries the socket again at once,
// where the write it stands for would have waited for the kernel to
// report room: over a client that reads a byte now and then, each such
// try gains a few bytes, and with each reply's deadline further out, a
// slow reader would never be cut. Reads have no such gap (a socket is
// readable from its first byte), and a write with no deadline asked for
// has nothing to be cut by.
type Conn struct {
	tcp *net.TCPConn

	mu          sync.Mutex
	read, write side
	// pending is set when the next read must arm the read deadline asked
	// for before it waits: one moved sooner while no read was under way,
	// or one asked for while a deadline long past stays armed (net/http
	// aborts its wait for the next request with a deadline long past,
	// then clears it, on every request; the next read arms the deadline
	// asked for instead of failing at once, which allocates the error,
	// and retrying).
	pending atomic.Bool
	// readers counts the reads under way, which a deadline moved sooner
	// must interrupt at once.
	readers atomic.Int32

	// sweeper, while watched, arms the read deadlines far ahead (loose)
	// that the connection leaves to it; watched is guarded by mu.
	sweeper *sweeper
	watched bool
}

// side is one direction's deadlines, as instants; Conn.mu guards it.
type side struct {
	want       int64 // the deadline last set; 0 for none
	armed      int64 // the one set on the connection: never later than want, 0 for none
	wantReply  bool  // want was set by SetReply
	armedReply bool  // armed was set by SetReply: a reply may keep it
	exact      bool  // arm every deadline set, as it is set (during ReadFrom)
}

// past reports whether s's armed deadline is long past (before longAgo).
func (s *side) past() bool { return s.armed != 0 && s.armed < longAgo }

// longAgo is the instant before which a deadline is known to be past
// without reading the clock (2000-01-01): net/http aborts a read with
// time.Unix(1, 0). A deadline past but later than this is not marked;
// the read it interrupts then fails once and retry arms the one asked
// for, which is only slower. Reading the clock on every arm cost about a
// tenth of the deadlines' time under load.
const longAgo = 946684800 * int64(time.Second)

// instant is t as Unix nanoseconds, the form a Conn keeps and compares
// deadlines in (several times a request: integers, where times would
// cost their monotonic and location handling and a write barrier): 0 for
// the zero time, no deadline; 1 for any time up to the Unix epoch, long
// past all the same; the largest int64 for one too far ahead to count
// in nanoseconds (the year 2262).
func instant(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	switch sec := t.Unix(); {
	case sec <= 0:
		return 1
	case sec >= math.MaxInt64/int64(time.Second)-1:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// timeOf is the time of instant n, to arm on the connection.
func timeOf(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// NewConn wraps tcp.
func NewConn(tcp *net.TCPConn) *Conn { return &Conn{tcp: tcp} }

// Listener wraps the TCP connections ln accepts in a Conn; others (a TLS
// listener's) are returned as they are. Its connections leave the read
// deadlines far ahead to a sweeper, which runs while the listener is open
// and has connections open; closing the listener stops it.
func Listener(ln net.Listener) net.Listener { return listen(ln, sweepEvery) }

func listen(ln net.Listener, every time.Duration) *listener {
	return &listener{Listener: ln, sweeper: newSweeper(every)}
}

type listener struct {
	net.Listener
	sweeper *sweeper
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tcp, ok := c.(*net.TCPConn); ok && err == nil {
		return l.sweeper.watch(tcp), nil
	}
	return c, err
}

// Close closes the listener and stops its sweeper: the connections still
// open arm their deadlines themselves from then on.
func (l *listener) Close() error {
	err := l.Listener.Close()
	l.sweeper.stop()
	return err
}

func (c *Conn) SetReadDeadline(t time.Time) error  { return c.set(&c.read, t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.set(&c.write, t) }

func (c *Conn) SetDeadline(t time.Time) error {
	err := c.SetReadDeadline(t)
	if werr := c.SetWriteDeadline(t); err == nil {
		err = werr
	}
	return err
}

// set asks for t on s, arming it on the connection unless it is zero or,
// for reads, no sooner than what is armed. It runs on every request,
// several times: no defer.
func (c *Conn) set(s *side, t time.Time) error {
	n, reply := instant(t), t.Location() == replyZone
	c.mu.Lock()
	if reply && s == &c.write && !s.exact && s.armedReply && s.armed <= n && n-s.armed <= int64(ReplySlack) {
		// No later than t, and at least LooseReply less ReplySlack away.
		s.want, s.wantReply = s.armed, true
		c.mu.Unlock()
		return nil
	}
	s.want, s.wantReply = n, reply
	if s == &c.read && s.armed == 0 && c.loose(n) {
		// Nothing armed to interrupt a read sooner, and the sweeper arms
		// t before it comes.
		if c.pending.Load() {
			c.pending.Store(false)
		}
		c.mu.Unlock()
		return nil
	}
	if !s.exact && (n == 0 || s == &c.read && s.armed != 0 && n >= s.armed) {
		// Stored only when it changes: this branch runs several times a
		// request, and a store is a locked instruction where a load is not.
		if past := s.past(); s == &c.read && c.pending.Load() != past {
			c.pending.Store(past)
		}
		c.mu.Unlock()
		return nil // what is armed fires first, and retry arms t then
	}
	if s == &c.read {
		// Stored before readers is read, as Read adds itself before it
		// reads pending: a read starting now either is counted here or
		// finds pending set.
		c.pending.Store(true)
		if c.readers.Load() == 0 {
			c.mu.Unlock()
			return nil // the next read arms t before it waits
		}
	}
	err := c.arm(s)
	c.mu.Unlock()
	return err
}

// loose reports whether read deadline n is far enough ahead to be left to
// the sweeper; c.mu is held.
func (c *Conn) loose(n int64) bool {
	return c.watched && n-c.sweeper.now.Load() >= c.sweeper.loose
}

// sweep arms the read deadline left to the sweeper if it comes by the
// instant by.
func (c *Conn) sweep(by int64) {
	c.mu.Lock()
	if c.read.armed == 0 && c.read.want != 0 && c.read.want <= by {
		_ = c.arm(&c.read)
	}
	c.mu.Unlock()
}

// unwatch arms the read deadline left to the sweeper, which is done.
func (c *Conn) unwatch() {
	c.mu.Lock()
	c.watched = false
	if c.read.armed == 0 && c.read.want != 0 {
		_ = c.arm(&c.read)
	}
	c.mu.Unlock()
}

// arm sets s's deadline asked for on the connection; c.mu is held, so
// that a deadline set meanwhile is armed after it, not before.
func (c *Conn) arm(s *side) error {
	s.armed, s.armedReply = s.want, s.wantReply
	if s == &c.read {
		c.pending.Store(false)
		return c.tcp.SetReadDeadline(timeOf(s.want))
	}
	return c.tcp.SetWriteDeadline(timeOf(s.want))
}

// retry is called when s's armed deadline interrupted a read or a write
// with err. It reports whether that deadline was an earlier one than the
// deadline asked for, which it then arms so that the caller tries again;
// false means the deadline asked for has passed (or the error is
// another).
func (c *Conn) retry(s *side, err error) bool {
	if !timedOut(err) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.armed == s.want || s.want != 0 && time.Now().UnixNano() >= s.want {
		return false
	}
	return c.arm(s) == nil
}

// timedOut reports whether err, a TCP connection's, is a deadline's. The
// connection returns it as a *net.OpError around os.ErrDeadlineExceeded,
// which is checked first: net/http ends every request without a body by
// interrupting its read with a deadline, and errors.Is would walk the
// error's chain each time.
func timedOut(err error) bool {
	if op, ok := err.(*net.OpError); ok && op.Err == os.ErrDeadlineExceeded {
		return true
	}
	return errors.Is(err, os.ErrDeadlineExceeded)
}

func (c *Conn) Read(p []byte) (int, error) {
	c.readers.Add(1)
	if c.pending.Load() {
		c.mu.Lock()
		if c.pending.Load() {
			c.armRead()
		}
		c.mu.Unlock()
	}
	for {
		n, err := c.tcp.Read(p)
		if err == nil || n > 0 || !c.retry(&c.read, err) {
			c.readers.Add(-1)
			return n, err
		}
	}
}

// armRead arms the read deadline asked for before a read waits; one the
// sweeper will arm is left to it, and what is armed is cleared instead,
// which takes neither a timer nor the clock. c.mu is held.
func (c *Conn) armRead() {
	if !c.loose(c.read.want) {
		_ = c.arm(&c.read)
		return
	}
	c.pending.Store(false)
	if c.read.armed != 0 {
		c.read.armed = 0
		_ = c.tcp.SetReadDeadline(time.Time{})
	}
}

func (c *Conn) Write(p []byte) (int, error) {
	written := 0
	for {
		n, err := c.tcp.Write(p[written:])
		written += n
		if err == nil || !c.retry(&c.write, err) {
			return written, err
		}
	}
}

// ReadFrom copies r to the connection as the TCP connection does (with
// sendfile or splice where it can). It cannot go on after an early
// deadline, as a write can: the copy may have read from r what it had not
// written. So while it runs, the write deadline is armed as it is set.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	c.write.exact = true
	if c.write.armed != c.write.want {
		_ = c.arm(&c.write)
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.write.exact = false
		c.mu.Unlock()
	}()
	return c.tcp.ReadFrom(r)
}

// NetConn is the TCP connection underneath (a *net.TCPConn), with the
// deadlines asked for armed on it, for code that needs it (a hijacker's
// TCP options); tls.Conn names its own the same way. Use it from then on
// instead of c.
func (c *Conn) NetConn() net.Conn {
	if c.sweeper != nil {
		c.sweeper.forget(c)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watched = false
	for _, s := range []*side{&c.read, &c.write} {
		if s.armed != s.want {
			_ = c.arm(s)
		}
	}
	return c.tcp
}

func (c *Conn) Close() error {
	if c.sweeper != nil {
		c.sweeper.forget(c)
	}
	return c.tcp.Close()
}

func (c *Conn) CloseWrite() error    { return c.tcp.CloseWrite() }
func (c *Conn) CloseRead() error     { return c.tcp.CloseRead() }
func (c *Conn) LocalAddr() net.Addr  { return c.tcp.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr { return c.tcp.RemoteAddr() }
