package deadline

import (
	"bytes"
	"io"
	"math"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair is a loopback TCP connection: c, the server's end wrapped, and
// peer, the client's. The listener is closed once c is accepted, which
// stops its sweeper: c then arms every deadline itself.
func pair(t *testing.T) (c *Conn, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln = Listener(ln)
	defer ln.Close()
	return dial(t, ln)
}

// dial connects to ln and accepts the connection: c, the server's end,
// and peer, the client's; both are closed at the end of the test.
func dial(t *testing.T, ln net.Listener) (c *Conn, peer net.Conn) {
	t.Helper()
	peer, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { peer.Close() })
	accepted, err := ln.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { accepted.Close() })
	c, ok := accepted.(*Conn)
	require.True(t, ok, "a TCP connection is wrapped: %T", accepted)
	// What only a broken Conn would leave hanging.
	require.NoError(t, peer.SetDeadline(time.Now().Add(10*time.Second)))
	return c, peer
}

// passed waits until t is in the past: a deadline armed for t has fired.
func passed(t time.Time) {
	for time.Now().Before(t.Add(10 * time.Millisecond)) {
		time.Sleep(time.Until(t) + 10*time.Millisecond)
	}
}

type result struct {
	n   int
	err error
	at  time.Time
}

func readAsync(c net.Conn, p []byte) <-chan result {
	done := make(chan result, 1)
	go func() {
		n, err := io.ReadFull(c, p)
		done <- result{n, err, time.Now()}
	}()
	return done
}

func writeAsync(c net.Conn, p []byte) <-chan result {
	done := make(chan result, 1)
	go func() {
		n, err := c.Write(p)
		done <- result{n, err, time.Now()}
	}()
	return done
}

func await(t *testing.T, done <-chan result) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the read or write never returned")
		return result{}
	}
}

// A deadline moved later, or cleared, leaves the earlier one armed; when
// it fires, the read goes on, and gets what the peer sends after it.
func TestAnEarlierDeadlineArmedDoesNotCutARead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		later time.Time
	}{
		{"moved later", time.Now().Add(time.Hour)},
		{"cleared", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, peer := pair(t)
			early := time.Now().Add(20 * time.Millisecond)
			require.NoError(t, c.SetReadDeadline(early))
			require.NoError(t, c.SetReadDeadline(tt.later))
			p := make([]byte, 5)
			done := readAsync(c, p)
			passed(early)
			_, err := peer.Write([]byte("hello"))
			require.NoError(t, err)
			r := await(t, done)
			require.NoError(t, r.err)
			assert.Equal(t, "hello", string(p))
		})
	}
}

// The deadline last set cuts the read, never an earlier one still armed,
// and one moved sooner interrupts a read already blocked.
func TestTheDeadlineLastSetCutsARead(t *testing.T) {
	t.Parallel()
	t.Run("moved later", func(t *testing.T) {
		t.Parallel()
		c, _ := pair(t)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Millisecond)))
		want := time.Now().Add(150 * time.Millisecond)
		require.NoError(t, c.SetReadDeadline(want))
		r := await(t, readAsync(c, make([]byte, 1)))
		require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
		assert.False(t, r.at.Before(want), "cut %v before the deadline", want.Sub(r.at))
	})
	for _, sooner := range []time.Time{time.Now().Add(50 * time.Millisecond), time.Unix(1, 0)} {
		t.Run("moved sooner during the read", func(t *testing.T) {
			t.Parallel()
			c, _ := pair(t)
			require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Hour)))
			done := readAsync(c, make([]byte, 1))
			require.NoError(t, c.SetReadDeadline(sooner))
			r := await(t, done)
			require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
		})
	}
}

// net/http aborts the read it keeps waiting for the next request with a
// deadline in the past, then clears it: the read must end every time, and
// the next read must get the next bytes.
func TestAbortingAReadThenClearingTheDeadline(t *testing.T) {
	t.Parallel()
	c, peer := pair(t)
	for i := range 50 {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Hour))) // moved later: not armed
		done := readAsync(c, make([]byte, 1))
		require.NoError(t, c.SetReadDeadline(time.Unix(1, 0)))
		require.ErrorIs(t, await(t, done).err, os.ErrDeadlineExceeded, "round %d", i)
		require.NoError(t, c.SetReadDeadline(time.Time{}))
		_, err := peer.Write([]byte{byte(i)})
		require.NoError(t, err)
		p := make([]byte, 1)
		r := await(t, readAsync(c, p))
		require.NoError(t, r.err, "round %d", i)
		require.Equal(t, byte(i), p[0])
	}
}

// A write blocked on a peer that reads nothing goes on past an earlier
// deadline still armed, and every byte arrives once the peer reads; the
// same through ReadFrom.
func TestAnEarlierDeadlineArmedDoesNotCutAWrite(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB: more than the socket buffers hold
	for _, name := range []string{"Write", "ReadFrom"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, peer := pair(t)
			early := time.Now().Add(20 * time.Millisecond)
			require.NoError(t, c.SetWriteDeadline(early))
			require.NoError(t, c.SetWriteDeadline(time.Time{}))
			done := make(chan result, 1)
			go func() {
				var n int64
				var err error
				if name == "Write" {
					var m int
					m, err = c.Write(data)
					n = int64(m)
				} else {
					n, err = c.ReadFrom(bytes.NewReader(data))
				}
				done <- result{int(n), err, time.Now()}
			}()
			passed(early)
			require.NoError(t, peer.SetDeadline(time.Now().Add(10*time.Second)))
			got, err := io.ReadAll(io.LimitReader(peer, int64(len(data))))
			require.NoError(t, err)
			r := await(t, done)
			require.NoError(t, r.err)
			assert.Equal(t, len(data), r.n)
			assert.True(t, bytes.Equal(data, got), "the bytes arrived as written")
		})
	}
}

// A write to a peer that reads nothing is cut at the deadline last set.
func TestTheDeadlineLastSetCutsAWrite(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	require.NoError(t, c.SetWriteDeadline(time.Now().Add(10*time.Millisecond)))
	want := time.Now().Add(150 * time.Millisecond)
	require.NoError(t, c.SetWriteDeadline(want))
	r := await(t, writeAsync(c, make([]byte, 64<<20)))
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(want), "cut %v before the deadline", want.Sub(r.at))
}

// NetConn hands out the TCP connection with the deadlines asked for
// armed: an earlier one left armed would cut its reads.
func TestNetConnArmsTheDeadlinesAskedFor(t *testing.T) {
	t.Parallel()
	c, peer := pair(t)
	early := time.Now().Add(20 * time.Millisecond)
	require.NoError(t, c.SetDeadline(early))
	require.NoError(t, c.SetDeadline(time.Time{}))
	tcp := c.NetConn()
	passed(early)
	_, err := peer.Write([]byte("x"))
	require.NoError(t, err)
	p := make([]byte, 1)
	require.NoError(t, await(t, readAsync(tcp, p)).err)
	_, err = tcp.Write([]byte("y"))
	assert.NoError(t, err)
}

// Connections other than TCP's (a TLS listener's, a pipe) are left as
// they are.
func TestListenerWrapsOnlyTCPConnections(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer b.Close()
	c, err := Listener(&oneConn{a}).Accept()
	require.NoError(t, err)
	assert.Same(t, a, c)
}

type oneConn struct{ c net.Conn }

func (l *oneConn) Accept() (net.Conn, error) { return l.c, nil }
func (l *oneConn) Close() error              { return nil }
func (l *oneConn) Addr() net.Addr            { return nil }

// Moving a deadline later, or clearing it, as every request does, takes
// neither a timer nor an allocation.
func TestMovingADeadlineLaterAllocatesNothing(t *testing.T) {
	c, _ := pair(t)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Minute)))
	later := time.Now().Add(time.Hour)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_ = c.SetReadDeadline(later)
		_ = c.SetReadDeadline(time.Time{})
	}))
}

// net/http ends every request by aborting its read with a deadline long
// past, then clearing it: the next read arms the deadline asked for
// before it starts, instead of failing (which allocates its error) and
// trying again.
func TestAReadAfterAnAbortAllocatesNothing(t *testing.T) {
	c, peer := pair(t)
	one, p := []byte{1}, make([]byte, 1)
	later := time.Now().Add(time.Hour)
	assert.Zero(t, testing.AllocsPerRun(50, func() {
		_, _ = peer.Write(one)
		_ = c.SetReadDeadline(time.Unix(1, 0))
		_ = c.SetReadDeadline(time.Time{})
		_ = c.SetReadDeadline(later)
		if _, err := c.Read(p); err != nil {
			t.Error(err)
		}
	}))
}

// A read deadline moved sooner while no read is under way costs nothing
// until a read: the next read arms it before it waits, so that read is
// cut at it, and one that finds its bytes waiting returns them.
func TestADeadlineMovedSoonerIsArmedByTheNextRead(t *testing.T) {
	t.Parallel()
	c, peer := pair(t)
	armed := func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		return timeOf(c.read.armed)
	}
	read := func(want string) {
		t.Helper()
		_, err := peer.Write([]byte(want))
		require.NoError(t, err)
		p := make([]byte, len(want))
		r := await(t, readAsync(c, p))
		require.NoError(t, r.err)
		assert.Equal(t, want, string(p))
	}
	later := time.Now().Add(time.Hour)
	require.NoError(t, c.SetReadDeadline(later))
	read("a")
	require.True(t, armed().Equal(later), "a read arms the deadline asked for")
	sooner := time.Now().Add(100 * time.Millisecond)
	require.NoError(t, c.SetReadDeadline(sooner))
	assert.True(t, armed().Equal(later), "no read under way: nothing armed yet")
	read("x")
	assert.True(t, armed().Equal(sooner), "the read armed the deadline asked for")

	p := make([]byte, 1)
	r := await(t, readAsync(c, p))
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(sooner), "cut %v before the deadline", sooner.Sub(r.at))
}

// A reply's deadline (SetReply) keeps the one armed for the reply before
// when that one comes at most ReplySlack sooner; any other deadline is
// armed as it is set.
func TestAReplyKeepsTheDeadlineOfTheReplyBefore(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reply := func(t time.Time) time.Time { return t.In(replyZone) }
	tests := []struct {
		name        string
		armed, next time.Time
		kept        bool
	}{
		{"a reply's, under the slack sooner", reply(now.Add(30 * time.Second)), reply(now.Add(30*time.Second + ReplySlack/2)), true},
		{"a reply's, the slack sooner", reply(now.Add(30 * time.Second)), reply(now.Add(30*time.Second + ReplySlack)), true},
		{"a reply's, more than the slack sooner", reply(now.Add(30 * time.Second)), reply(now.Add(30*time.Second + 2*ReplySlack)), false},
		{"a reply's, later", reply(now.Add(30 * time.Second)), reply(now.Add(29 * time.Second)), false},
		{"a handler's, under the slack sooner", now.Add(30 * time.Second), reply(now.Add(30*time.Second + ReplySlack/2)), false},
		{"a reply's, before a handler's", reply(now.Add(30 * time.Second)), now.Add(30*time.Second + ReplySlack/2), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := pair(t)
			require.NoError(t, c.SetWriteDeadline(tt.armed))
			require.NoError(t, c.SetWriteDeadline(tt.next))
			c.mu.Lock()
			armed, want := timeOf(c.write.armed), timeOf(c.write.want)
			c.mu.Unlock()
			if tt.kept {
				assert.True(t, armed.Equal(tt.armed), "armed %v, want the one before, %v", armed, tt.armed)
				assert.True(t, want.Equal(tt.armed), "the deadline is the one kept")
				return
			}
			assert.True(t, armed.Equal(tt.next), "armed %v, want %v", armed, tt.next)
			assert.True(t, want.Equal(tt.next))
		})
	}
}

// A write past a reply's deadline that was kept fails, as at any
// deadline: the one kept is the deadline.
func TestAKeptReplyDeadlineCutsAWrite(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	kept := time.Now().Add(100 * time.Millisecond).In(replyZone)
	require.NoError(t, c.SetWriteDeadline(kept))
	require.NoError(t, c.SetWriteDeadline(kept.Add(ReplySlack/2)))
	r := await(t, writeAsync(c, make([]byte, 64<<20)))
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(kept), "cut %v before the deadline kept", kept.Sub(r.at))
}

// Deadlines are kept as instants: every time maps to one that compares
// the same way, the zero time to none, and times beyond int64
// nanoseconds to the nearest end.
func TestInstants(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name string
		t    time.Time
		want int64
	}{
		{"zero: no deadline", time.Time{}, 0},
		{"net/http's abort", time.Unix(1, 0), int64(time.Second)},
		{"the epoch", time.Unix(0, 0), 1},
		{"before the epoch", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), 1},
		{"now", now, now.UnixNano()},
		{"now, in a reply's zone", now.In(replyZone), now.UnixNano()},
		{"past int64 nanoseconds", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, instant(tt.t), tt.name)
	}
	assert.True(t, timeOf(instant(now)).Equal(now), "an instant is the time it was made from")
	assert.True(t, timeOf(0).IsZero())
	assert.Less(t, instant(time.Unix(1, 0)), longAgo, "net/http's abort is long past")
	assert.Greater(t, instant(time.Date(2000, 1, 1, 0, 0, 0, 1, time.UTC)), longAgo)
}
