package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/burrow-go/burrow/httpx"
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
	w   http.ResponseWriter
	ctx context.Context
	h   http.Header

	mu       sync.Mutex
	began    bool // the handler's reply has begun: it is the reply
	answered bool // the 503 was sent: the handler's writes are discarded
}

func newDeadlineWriter(w http.ResponseWriter, ctx context.Context) *deadlineWriter {
	return &deadlineWriter{w: w, ctx: ctx, h: http.Header{}}
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
// it would wait for the handler.
func (dw *deadlineWriter) answer() {
	dw.answered = true
	h := dw.w.Header()
	h["Connection"] = closeHeader
	h["Content-Type"] = []string{httpx.ContentTypeJSON}
	// A length, so the flushed reply is complete; without one net/http
	// would chunk it and end it only when the handler returns.
	h["Content-Length"] = []string{strconv.Itoa(len(timeoutReply))}
	dw.w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = dw.w.Write(timeoutReply)
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

// copyHeader puts the handler's headers on the real writer; dw.mu is held.
func (dw *deadlineWriter) copyHeader() {
	dst := dw.w.Header()
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
