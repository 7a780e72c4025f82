package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/deadline"
	"github.com/burrow-go/burrow/internal/tracking"
)

// errTimeout is the reply a request gets when the request time-out
// expires before its handler began to answer.
var errTimeout = httpx.NewError(http.StatusServiceUnavailable, "FST_ERR_REQUEST_TIMEOUT", "Request timed out")

// timeoutReply is errTimeout's body, written by the deadline's goroutine.
var timeoutReply = func() []byte {
	b, err := json.Marshal(httpx.BodyOf(errTimeout))
	if err != nil {
		panic(err)
	}
	return b
}()

// errDeadline is the cause of a request context ended by the request
// time-out, which tells it from a client that went away. It wraps
// context.DeadlineExceeded, the context's Err, so a handler (a stream's,
// whose context ends at the deadline too) tells a time-out with
// errors.Is on either.
var errDeadline = fmt.Errorf("request time-out: %w", context.DeadlineExceeded)

// deadlineWriter stands between a request with a time-out and its
// ResponseWriter. At the deadline, unless the handler has begun its
// reply, it answers 503 itself and discards what the handler writes from
// then on, as http.TimeoutHandler does; the handler keeps its goroutine
// (the request's) and is told by its context.
//
// The 503 is written from the deadline's goroutine while the handler may
// still run, so the two never share state without the lock: the handler
// writes its headers into a map of its own, copied to the real one when
// its reply begins. Only routes of a server with a request time-out pay
// for this.
type deadlineWriter struct {
	w      http.ResponseWriter
	ctx    context.Context
	h      http.Header
	reply  time.Duration     // the reply time-out, which bounds the 503's write too
	r      *http.Request     // the request the 503 answers
	format httpx.ErrorFormat // the 503's

	mu       sync.Mutex
	began    bool // the handler's reply has begun: it is the reply
	answered bool // the 503 was sent: the handler's writes are discarded
}

func newDeadlineWriter(w http.ResponseWriter, r *http.Request, ctx context.Context, reply time.Duration, format httpx.ErrorFormat) *deadlineWriter {
	// The handler's map starts as a copy of what the middleware set, so
	// the handler reads it and adds to it (a CORS middleware's
	// "Vary: Origin", kept under the handler's "Vary: Accept-Encoding").
	h := w.Header().Clone()
	if h == nil {
		h = http.Header{}
	}
	return &deadlineWriter{w: w, r: r, ctx: ctx, h: h, reply: reply, format: format}
}

// expired reports whether ctx ended at the request time-out (not because
// the client went away or the request ended).
func (dw *deadlineWriter) expired() bool {
	return dw.ctx.Err() != nil && context.Cause(dw.ctx) == errDeadline
}

// expire answers 503 if the deadline has passed and the handler's reply
// has not begun. It reports whether the client's reply is the 503.
func (dw *deadlineWriter) expire() bool {
	if !dw.expired() {
		return false
	}
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if !dw.began && !dw.answered {
		dw.answer()
	}
	return dw.answered
}

// timedOut reports whether the client's reply is the 503.
func (dw *deadlineWriter) timedOut() bool {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	return dw.answered
}

// answer writes the time-out reply; dw.mu is held. The connection closes
// after it: its goroutine is still the handler's, so a next request on
// it would wait for the handler. The write is bounded by the reply
// time-out as any reply's: a client that reads nothing would otherwise
// block it for good, and with it, behind dw.mu, the handler's goroutine
// and the onTimeout hooks.
func (dw *deadlineWriter) answer() {
	dw.answered = true
	if dw.reply > 0 {
		deadline.SetWrite(dw.w, time.Now().Add(dw.reply))
	}
	h := dw.w.Header()
	h["Connection"] = closeHeader
	body := errorBytes(timeoutReply, dw.format, errTimeout, dw.r)
	h["Content-Type"] = []string{dw.format.ContentType()}
	// A length, so the flushed reply is complete; without one net/http
	// would chunk it and end it only when the handler returns.
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	dw.w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = dw.w.Write(body)                      // #nosec G705 -- JSON under a JSON content type, as writeInternal's
	_ = http.NewResponseController(dw.w).Flush() // now, not when the handler returns
}

// begin starts the handler's reply, unless the 503 was or is now sent; it
// reports whether the handler may write. dw.mu is held.
func (dw *deadlineWriter) begin() bool {
	switch {
	case dw.answered:
		return false
	case dw.began:
		return true
	case dw.expired():
		dw.answer()
		return false
	}
	dw.copyHeader()
	dw.began = true
	return true
}

// copyHeader makes the handler's headers the real writer's; dw.mu is
// held. They began as a copy of the real ones, so what the handler
// deleted goes too.
func (dw *deadlineWriter) copyHeader() {
	dst := dw.w.Header()
	clear(dst)
	for k, v := range dw.h {
		dst[k] = v
	}
}

func (dw *deadlineWriter) Header() http.Header { return dw.h }

func (dw *deadlineWriter) WriteHeader(status int) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		// Informational: the reply has not begun.
		if !dw.answered && !dw.expired() {
			dw.copyHeader()
			dw.w.WriteHeader(status)
		}
		return
	}
	if dw.began || !dw.begin() {
		return // a second WriteHeader, or discarded
	}
	dw.w.WriteHeader(status)
}

func (dw *deadlineWriter) Write(p []byte) (int, error) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if !dw.begin() {
		return 0, http.ErrHandlerTimeout
	}
	return dw.w.Write(p)
}

// ReadFrom copies src into the reply as io.Copy through Write would, but
// through the writer underneath's own ReadFrom when it has one: net/http
// then sends a file with sendfile.
//
// The reply begins with src's first bytes, not with the call, as it does
// when io.Copy writes them: a source that yields nothing before the
// deadline leaves the reply to the 503, which goes out at the deadline
// while the copy waits, and the copy is refused (http.ErrHandlerTimeout)
// once it has something to write. So those first bytes go through Write
// (up to 512, the bytes net/http reads itself before its ReadFrom takes
// over), and the rest, once the reply is the handler's, to the writer
// underneath. That part runs without dw.mu: the deadline never writes
// after the handler's reply has begun, so there is nothing left to keep
// apart, and holding the lock for as long as src takes to yield would
// only hold up the deadline's goroutine.
func (dw *deadlineWriter) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := dw.w.(io.ReaderFrom)
	if !ok {
		return io.Copy(tracking.WriterOnly{Writer: dw}, src)
	}
	dw.mu.Lock()
	began := dw.began
	dw.mu.Unlock()
	var n int64
	if !began {
		var err error
		if n, err = io.Copy(tracking.WriterOnly{Writer: dw}, io.LimitReader(src, sniffLen)); err != nil || n < sniffLen {
			return n, err
		}
	}
	m, err := rf.ReadFrom(src)
	return n + m, err
}

// sniffLen is how much net/http copies through its writer's Write before
// its ReadFrom hands the rest to the connection.
const sniffLen = 512

// FlushError flushes what the handler wrote, for http.ResponseController.
func (dw *deadlineWriter) FlushError() error {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if !dw.begin() {
		return http.ErrHandlerTimeout
	}
	return http.NewResponseController(dw.w).Flush()
}

// Flush is FlushError for code that asserts http.Flusher.
func (dw *deadlineWriter) Flush() { _ = dw.FlushError() }

// Hijack takes the connection over, unless the 503 was sent.
func (dw *deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	if dw.answered || dw.expired() {
		return nil, nil, http.ErrHandlerTimeout
	}
	c, rw, err := http.NewResponseController(dw.w).Hijack()
	if err == nil {
		dw.began = true // nothing else is written
	}
	return c, rw, err
}

// Unwrap gives http.ResponseController the real writer for what needs no
// lock (read and write deadlines, full duplex).
func (dw *deadlineWriter) Unwrap() http.ResponseWriter { return dw.w }
