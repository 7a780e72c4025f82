// Package deadline sets the read and write deadlines of the connection
// under an http.ResponseWriter, looking through the writers that wrap it
// (a middleware's, Burrow's own) as http.ResponseController does, but
// without the controller's allocation, nor its "not supported" error built
// with fmt for a writer that has no connection (Inject's): the reply and
// body time-outs arm them on every request. Conn is the other half: the
// connection underneath, which arms a timer only when a deadline comes
// sooner than the one armed.
package deadline

import (
	"net/http"
	"time"
)

// SetRead sets the read deadline of w's connection to t (zero clears it)
// and reports whether w, or a writer it unwraps to, could.
func SetRead(w http.ResponseWriter, t time.Time) bool { return set(w, t, false) }

// SetWrite sets the write deadline of w's connection to t (zero clears it)
// and reports whether w, or a writer it unwraps to, could.
func SetWrite(w http.ResponseWriter, t time.Time) bool { return set(w, t, true) }

// SetReply sets the write deadline of w's connection for a reply that
// has d to be written, until t (now plus d), and reports whether w, or a
// writer it unwraps to, could. For d of at least LooseReply, a Conn keeps
// the deadline it armed for a reply before if it comes no more than
// ReplySlack before t: every reply sets one, and re-arming the
// connection's timer for each would cost a small request a few percent
// of its time, for a deadline tens of seconds out that moves by
// microseconds. The reply then has at least d less ReplySlack.
func SetReply(w http.ResponseWriter, t time.Time, d time.Duration) bool {
	if d >= LooseReply {
		t = t.In(replyZone)
	}
	return set(w, t, true)
}

const (
	// ReplySlack is how much sooner than asked a reply's deadline may be.
	ReplySlack = time.Second
	// LooseReply is the shortest reply time-out whose deadline may be
	// ReplySlack early: an eighth of it at most.
	LooseReply = 8 * ReplySlack
)

// replyZone marks a deadline SetReply set, which a Conn may bring
// forward. The mark goes through net/http's ResponseWriter untouched, as
// the deadline's location, which no comparison of times reads.
var replyZone = time.FixedZone("reply", 0)

// WriteSetter is what sets a connection's write deadline.
type WriteSetter = writeDeadliner

// WriteTarget returns the writer SetWrite would set w's write deadline
// through, or nil. Found on the goroutine that owns w, it lets another
// goroutine set the deadline later without walking w's wrappers, whose
// Unwrap may read what their owner is changing (a compressing
// middleware's writer, as its request ends).
func WriteTarget(w http.ResponseWriter) WriteSetter {
	for w != nil {
		if d, ok := w.(writeDeadliner); ok {
			return d
		}
		u, ok := w.(unwrapper)
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

type (
	readDeadliner  interface{ SetReadDeadline(time.Time) error }
	writeDeadliner interface{ SetWriteDeadline(time.Time) error }
	unwrapper      interface{ Unwrap() http.ResponseWriter }
)

// set asks w for the deadline, then each writer it unwraps to, as
// http.ResponseController does: the first that has the method sets it.
func set(w http.ResponseWriter, t time.Time, write bool) bool {
	for w != nil {
		if write {
			if d, ok := w.(writeDeadliner); ok {
				return d.SetWriteDeadline(t) == nil
			}
		} else if d, ok := w.(readDeadliner); ok {
			return d.SetReadDeadline(t) == nil
		}
		u, ok := w.(unwrapper)
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	return false
}
