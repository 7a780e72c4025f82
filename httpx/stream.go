package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/burrow-go/burrow/internal/deadline"
)

// ErrServerClosing is the cause of a stream's context ended because the
// server began to close (context.Cause(ctx) returns it), which tells a
// handler to send its last event from the client having gone away
// (context.Canceled).
var ErrServerClosing = errors.New("server closing")

// errHeadOnly is the cause of a stream's context for a HEAD request.
// net/http writes no body to HEAD and discards a handler's writes without
// an error, so a stream would run until the client went away, and the
// client's next request on the connection would wait behind it. It wraps
// context.Canceled: a handler that stops when the client goes away stops
// here too.
var errHeadOnly = fmt.Errorf("a HEAD request gets the stream's headers only: %w", context.Canceled)

// SetClosing gives the exchange's replies the server's closing context:
// once it is done, every open stream's context ends with its cause. The
// framework calls it once, when it makes the exchange; it survives the
// requests the exchange serves.
func (x *Exchange) SetClosing(ctx context.Context) { x.rep.closing = ctx }

// beginStream makes the request's context end when the server begins to
// close as well as when the client goes away, for a reply that streams.
// Only streams pay for it; the request's end undoes it (endStream).
func (r *reply) beginStream() context.Context {
	r.streamed = true
	r.armWrite()
	ctx := r.req.Context()
	if r.req.isHead() {
		// Only the headers go out: the stream is over once they have.
		hctx, cancel := context.WithCancelCause(ctx)
		cancel(errHeadOnly)
		r.req.s.ctx = hctx
		return hctx
	}
	if r.closing == nil || r.stream != nil {
		return ctx
	}
	sctx, cancel := context.WithCancelCause(ctx)
	sc := &streamClose{w: deadline.WriteTarget(r.w), cancel: cancel}
	closing := r.closing
	sc.stop = context.AfterFunc(closing, func() { sc.close(context.Cause(closing)) })
	r.stream = sc
	r.req.s.ctx = sctx
	return sctx
}

// closeGrace is how long a stream may still write once the server began
// to close: its context ends then, and its handler may send a last event,
// which a client that reads gets at once. A client that stopped reading
// would otherwise hold the handler in a blocked write, and Close with it,
// until the reply time-out or Close's own deadline.
const closeGrace = 500 * time.Millisecond

// streamClose joins a stream to the server's closing: when the close
// begins, the stream's context ends and its connection gets a write
// deadline closeGrace away, which interrupts a write already blocked.
// The callback runs on a goroutine of its own; the lock keeps it off the
// writer once the stream has ended, when the writer may be the next
// request's.
type streamClose struct {
	stop   func() bool // stops the callback
	cancel context.CancelCauseFunc

	mu sync.Mutex
	// w sets the write deadline of the stream's connection, found when
	// the stream began (on the handler's goroutine: the callback must not
	// walk the writers a middleware wraps, which it may be changing); nil
	// once the stream ended, or when there is no connection.
	w  deadline.WriteSetter
	by time.Time // the write deadline the close set; zero before
}

// close is the callback: the write deadline, then the context's end.
func (sc *streamClose) close(cause error) {
	sc.mu.Lock()
	if sc.w != nil {
		sc.by = time.Now().Add(closeGrace)
		_ = sc.w.SetWriteDeadline(sc.by)
	}
	sc.mu.Unlock()
	sc.cancel(cause)
}

// deadline is the write deadline the close set, zero before it began.
func (sc *streamClose) deadline() time.Time {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.by
}

// end detaches the stream from the closing: no callback outlives it.
func (sc *streamClose) end() {
	sc.stop()
	sc.mu.Lock()
	sc.w = nil
	sc.mu.Unlock()
	sc.cancel(context.Canceled)
}

// endStream releases what beginStream set up: no goroutine or callback
// outlives the request.
func (r *reply) endStream() {
	if r.streamed {
		// Each part armed the deadline when it was written, and it may
		// have passed since: net/http's last chunk gets a fresh one, so a
		// stream that ends is ended cleanly.
		r.streamed = false
		r.armWrite()
	}
	if r.stream != nil {
		r.stream.end()
		r.stream = nil
	}
}

// Stream writes body as the response, flushing after each read, so the
// client gets each part as soon as body yields it (chunked, with no
// Content-Length unless one was set). Like Raw, it bypasses the send
// hooks: no PreSerialization or OnSend hook sees the body. It ends when body does (io.EOF),
// when the client goes away, when the server begins to close or at the
// request time-out — the request's context says which (see SSE) — and
// returns body's or the connection's error, or the context's cause. The
// status is the one set with Code (200 by default); like Send's, it must
// be a final one, 200 to 999, or Stream returns an error wrapping
// ErrInvalidStatus before the response begins. The content type is
// application/octet-stream unless one was set. To a HEAD request (a GET
// route's HEAD twin) Stream sends the headers and returns nil without
// reading body; the request's context is done from then on.
func (rp *Reply) Stream(body io.Reader) error {
	r := rp.live()
	if r.sent || r.tw.Started {
		return ErrAlreadySent
	}
	if err := r.finalStatus("Stream"); err != nil {
		return err
	}
	ctx := r.beginStream()
	h := r.tw.Header()
	if _, ok := h["Content-Type"]; !ok {
		h["Content-Type"] = binaryType
	}
	r.sent = true
	r.tw.WriteHeader(r.status)
	if err := r.tw.FlushError(); err != nil || r.req.isHead() {
		return err // HEAD: the headers are the whole answer; body is not read
	}
	buf := make([]byte, 32<<10)
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		n, rerr := body.Read(buf)
		if n > 0 {
			r.armWrite()
			if _, err := r.tw.Write(buf[:n]); err != nil {
				return err
			}
			if err := r.tw.FlushError(); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// ServeContent answers with content as http.ServeContent does: Range
// requests get 206 (or 416), a conditional request whose If-Modified-Since
// or If-None-Match matches gets 304, HEAD gets the headers only, and the
// content type comes from name's extension or the first bytes. modtime
// (zero for none) sets Last-Modified. The status and size written are the
// reply's, for OnResponse hooks and the access log. Like Raw, it bypasses
// the send hooks: no PreSerialization or OnSend hook sees the content. To
// send a file, open it and pass it with its Stat's ModTime; close it
// after ServeContent.
func (rp *Reply) ServeContent(name string, modtime time.Time, content io.ReadSeeker) error {
	r := rp.live()
	if r.sent || r.tw.Started {
		return ErrAlreadySent
	}
	r.sent = true
	r.armWrite() // one reply: the whole of it within the reply time-out (SetWriteTimeout raises it)
	http.ServeContent(&r.tw, r.req.Raw(), name, modtime, content)
	return nil
}
