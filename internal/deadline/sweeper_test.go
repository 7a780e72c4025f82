package deadline

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTick is the sweeper's tick in these tests: a read deadline 80 ms
// or more away is left to it.
const testTick = 20 * time.Millisecond

// watched is a loopback TCP connection accepted by a listener whose
// sweeper ticks every testTick and stays open: c, the server's end, is
// watched; peer is the client's end.
func watched(t *testing.T) (l *listener, c *Conn, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l = listen(ln, testTick)
	t.Cleanup(func() { l.Close() })
	c, peer = dial(t, l)
	require.True(t, c.watched)
	return l, c, peer
}

// armed is c's read deadline armed on the connection, and the one asked
// for.
func armed(c *Conn) (armed, want int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read.armed, c.read.want
}

// A read deadline far ahead arms nothing on the connection, and still
// cuts a read at it: the sweeper arms it before it comes.
func TestADeadlineLeftToTheSweeperCutsARead(t *testing.T) {
	t.Parallel()
	_, c, _ := watched(t)
	at := time.Now().Add(300 * time.Millisecond)
	require.NoError(t, c.SetReadDeadline(at))
	got, want := armed(c)
	require.Zero(t, got, "nothing armed")
	require.Equal(t, at.UnixNano(), want)
	r := await(t, readAsync(c, make([]byte, 1)))
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(at), "cut %v before the deadline", at.Sub(r.at))
}

// net/http's round between two requests (abort the background read with
// a deadline long past, clear it, set the idle deadline, read the next
// request) arms no timer: the read clears the deadline long past and
// leaves the idle one to the sweeper; and it allocates nothing.
func TestTheIdleDeadlineBetweenRequestsArmsNoTimer(t *testing.T) {
	_, c, peer := watched(t)
	one, p := []byte{1}, make([]byte, 1)
	idle := time.Now().Add(time.Hour)
	round := func() {
		_, _ = peer.Write(one)
		_ = c.SetReadDeadline(time.Unix(1, 0))
		_ = c.SetReadDeadline(time.Time{})
		_ = c.SetReadDeadline(idle)
		if _, err := c.Read(p); err != nil {
			t.Error(err)
		}
	}
	round()
	got, want := armed(c)
	assert.Zero(t, got, "nothing armed")
	assert.Equal(t, idle.UnixNano(), want)
	assert.Zero(t, testing.AllocsPerRun(50, round))
}

// A deadline moved sooner than the sweeper takes is armed at once, and
// cuts a read under way.
func TestADeadlineTooCloseForTheSweeperIsArmedAtOnce(t *testing.T) {
	t.Parallel()
	_, c, _ := watched(t)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Hour)))
	done := readAsync(c, make([]byte, 1))
	soon := time.Now().Add(30 * time.Millisecond)
	require.NoError(t, c.SetReadDeadline(soon))
	r := await(t, done)
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(soon), "cut %v before the deadline", soon.Sub(r.at))
}

// Closing the listener stops its sweeper, and the connections still open
// arm the deadlines they had left to it: a read is cut at them all the
// same. A connection accepted from then on is on its own.
func TestClosingTheListenerArmsWhatItsSweeperHeld(t *testing.T) {
	t.Parallel()
	l, c, _ := watched(t)
	far := time.Now().Add(time.Hour)
	require.NoError(t, c.SetReadDeadline(far))
	got, _ := armed(c)
	require.Zero(t, got)
	require.NoError(t, l.Close())
	select {
	case <-l.sweeper.done:
	default:
		require.FailNow(t, "the sweeper still runs after Close returned")
	}
	got, want := armed(c)
	assert.Equal(t, want, got, "armed at the close")
	assert.False(t, c.watched)

	at := time.Now().Add(300 * time.Millisecond)
	require.NoError(t, c.SetReadDeadline(at))
	r := await(t, readAsync(c, make([]byte, 1)))
	require.ErrorIs(t, r.err, os.ErrDeadlineExceeded)
	assert.False(t, r.at.Before(at), "cut %v before the deadline", at.Sub(r.at))
}

// A connection closed, or handed over through NetConn, is no longer
// watched; NetConn arms the deadline the sweeper held.
func TestTheSweeperForgetsConnectionsClosedOrHandedOver(t *testing.T) {
	t.Parallel()
	l, c, _ := watched(t)
	_, d, _ := watched(t)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Hour)))
	tcp := c.NetConn()
	got, want := armed(c)
	assert.Equal(t, want, got, "armed when handed over")
	require.NoError(t, tcp.SetReadDeadline(time.Time{}))
	l.sweeper.mu.Lock()
	_, kept := l.sweeper.conns[c]
	l.sweeper.mu.Unlock()
	assert.False(t, kept, "handed over")

	require.NoError(t, d.Close())
	d.sweeper.mu.Lock()
	_, kept = d.sweeper.conns[d]
	d.sweeper.mu.Unlock()
	assert.False(t, kept, "closed")
}
