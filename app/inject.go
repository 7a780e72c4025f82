package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Inject serves r in process, without a socket, and returns the response
// as a client would see it: status, headers (with Content-Length) and
// body, which is empty for HEAD and for statuses that carry none. It boots
// the server first if needed. Build r with httptest.NewRequest.
//
// A reply the handler flushes (http.NewResponseController(rep.Raw()).Flush,
// or a streaming helper) is returned at its first flush, while the handler
// still runs, as net/http would send it: without Content-Length unless the
// handler set one, its body yielding each byte as it is written and ending
// when the handler returns. Closing that body early is a client going
// away: the request's context is cancelled, and the handler's next writes
// fail. A reply that is never flushed is returned once the handler has
// returned, its body complete.
//
// Inject does not panic: a response a handler aborts with
// panic(http.ErrAbortHandler), which drops a real connection, is an error
// wrapping http.ErrAbortHandler — from Inject, or from reading the body
// when the reply had been flushed before.
func (s *Server) Inject(r *http.Request) (*http.Response, error) {
	if state(s.a.state.Load()) != stateDraining {
		if err := s.Ready(); err != nil {
			return nil, err
		}
	}
	if r.RequestURI == "" {
		r.RequestURI = r.URL.RequestURI()
	}
	// r's context may be a hijacked request's (a WebSocket handler
	// serving a message in process): the request Inject serves has no
	// connection, so its end must not end that one's count.
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), connKey{}, nil))
	rec := newRecorder(r, cancel)
	go func() {
		defer cancel()
		err := errHandlerExited // unless serveRecovered returns
		defer func() { rec.finish(err) }()
		err = s.serveRecovered(rec, r.WithContext(ctx))
	}()
	select {
	case <-rec.ended:
		if rec.err != nil {
			return nil, rec.err
		}
		return rec.result(), nil
	case <-rec.flushed:
		return rec.streamed(), nil
	}
}

// serveRecovered serves r, returning what net/http would recover (and
// answer by dropping the connection) as an error.
func (s *Server) serveRecovered(w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				err = fmt.Errorf("the handler aborted the response: %w", http.ErrAbortHandler)
				return
			}
			err = fmt.Errorf("serving the request failed: %w", errorOf(p))
		}
	}()
	s.ServeHTTP(w, r)
	return nil
}

// recorder is the in-process ResponseWriter of Inject. It mirrors what
// net/http puts on the wire: a default 200, an exact Content-Length for a
// reply that was not flushed (when the handler set none), and a streamed
// body for one that was.
//
// The handler runs on a goroutine of its own; what it writes is kept in
// body until the response is handed out (at the first flush or when the
// handler returns), then read from it by the response's body. mu guards
// everything the two goroutines share.
type recorder struct {
	header http.Header // the handler's
	req    *http.Request
	cancel context.CancelFunc // the request's context: the client went away

	mu          sync.Mutex
	more        sync.Cond // body grew, or the handler returned, or the reader left
	status      int
	wroteHeader bool
	body        bytes.Buffer // what is not read yet
	length      int
	sent        http.Header // the headers as flushed
	gone        bool        // the streamed body was closed by its reader
	err         error       // the handler's abort; valid once ended is closed

	flushed chan struct{} // closed at the first flush
	ended   chan struct{} // closed when the handler has returned
}

func newRecorder(r *http.Request, cancel context.CancelFunc) *recorder {
	w := &recorder{header: http.Header{}, req: r, cancel: cancel,
		flushed: make(chan struct{}), ended: make(chan struct{})}
	w.more.L = &w.mu
	return w
}

func (w *recorder) Header() http.Header { return w.header }

// WriteHeader panics on a status outside 100 to 999 before recording
// anything, as net/http's writer does, so that Inject answers such a
// mistake as a client over a socket sees it (500 from the error path).
// An informational status but 101 (103 Early Hints) is not the response's:
// net/http sends it ahead of the response, which the handler still
// writes, and an http.Client skips it.
func (w *recorder) WriteHeader(status int) {
	if status < 100 || status > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(status)) // net/http's words
	}
	if status < 200 && status != http.StatusSwitchingProtocols {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeader(status)
}

// writeHeader records the status; w.mu is held.
func (w *recorder) writeHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.status, w.wroteHeader = status, true
}

func (w *recorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone {
		return 0, io.ErrClosedPipe // the client went away
	}
	w.writeHeader(http.StatusOK)
	w.length += len(p)
	if w.req.Method != http.MethodHead && bodyAllowedStatus(w.status) {
		w.body.Write(p)
		w.more.Broadcast()
	}
	return len(p), nil
}

// FlushError hands the response out at the first flush; for
// http.ResponseController.
func (w *recorder) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone {
		return io.ErrClosedPipe
	}
	w.writeHeader(http.StatusOK)
	if w.sent == nil {
		w.sent = w.header.Clone()
		if w.sent.Get("Content-Type") == "" && w.body.Len() > 0 {
			w.sent.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
		}
		close(w.flushed)
	}
	return nil
}

// Flush is FlushError for code that asserts http.Flusher.
func (w *recorder) Flush() { _ = w.FlushError() }

// finish records that the handler returned, with err if it aborted.
func (w *recorder) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	close(w.ended)
	w.more.Broadcast()
}

// result is the response to a handler that returned without flushing.
func (w *recorder) result() *http.Response {
	w.writeHeader(http.StatusOK)
	h := w.header.Clone()
	if h.Get("Content-Length") == "" && bodyAllowedStatus(w.status) {
		h.Set("Content-Length", strconv.Itoa(w.length))
	}
	if h.Get("Content-Type") == "" && w.length > 0 {
		h.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	res := w.response(h, io.NopCloser(bytes.NewReader(w.body.Bytes())))
	res.ContentLength = int64(w.length)
	return res
}

// streamed is the response to a handler that flushed: its body is read
// as the handler writes it.
func (w *recorder) streamed() *http.Response {
	w.mu.Lock()
	defer w.mu.Unlock()
	res := w.response(w.sent, &streamBody{w: w})
	res.ContentLength = -1
	if n, err := strconv.ParseInt(w.sent.Get("Content-Length"), 10, 64); err == nil {
		res.ContentLength = n
	} else if bodyAllowedStatus(w.status) {
		res.TransferEncoding = []string{"chunked"}
	}
	return res
}

func (w *recorder) response(h http.Header, body io.ReadCloser) *http.Response {
	return &http.Response{
		Status:     strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode: w.status,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Body:       body,
		Request:    w.req,
	}
}

// streamBody is the body of a flushed reply.
type streamBody struct{ w *recorder }

// Read waits for bytes the handler writes, or for its end: io.EOF, or
// the abort that net/http would answer by dropping the connection.
func (b *streamBody) Read(p []byte) (int, error) {
	w := b.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.body.Len() == 0 && !w.gone && !w.done() {
		w.more.Wait()
	}
	switch {
	case w.body.Len() > 0:
		return w.body.Read(p)
	case w.gone:
		return 0, errBodyClosed
	case w.err != nil:
		return 0, fmt.Errorf("the response ended before it was complete: %w", w.err)
	}
	return 0, io.EOF
}

// Close is the client going away: the request's context is cancelled and
// what the handler writes from then on fails.
func (b *streamBody) Close() error {
	w := b.w
	w.mu.Lock()
	defer w.mu.Unlock()
	// Both under the lock, as net/http cancels the context before a write
	// to a client that left returns its error: a handler that sees its
	// write fail finds the context done, and one that sees the context
	// done has its next write fail.
	w.gone = true
	w.cancel()
	w.body.Reset()
	w.more.Broadcast()
	return nil
}

// errHandlerExited is Inject's error when the handler's goroutine ends
// without returning: runtime.Goexit, which a test's t.FailNow calls.
var errHandlerExited = errors.New("the handler's goroutine exited without returning (runtime.Goexit; t.FailNow in a handler?)")

// errBodyClosed is what reading a closed streamed body returns.
var errBodyClosed = errors.New("read on a closed Inject response body")

// done reports whether the handler has returned; w.mu is held.
func (w *recorder) done() bool {
	select {
	case <-w.ended:
		return true
	default:
		return false
	}
}

func bodyAllowedStatus(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
