package httpx

import (
	"bufio"
	"net"
	"net/http"
)

// writer is the http.ResponseWriter every reply is written through, Send's
// writes and a handler's through Raw alike. It records what reached the
// client's writer — the status, whether the response has begun, the body
// bytes — so the framework never writes after user code did, and its log
// and onResponse hooks report what was really sent. It is part of the
// pooled reply: handing it out costs no allocation.
type writer struct {
	w        http.ResponseWriter
	status   int   // the status written; valid once started
	size     int64 // body bytes written
	started  bool  // the final status (or the connection) has gone
	hijacked bool
}

// reset points w at a new response.
func (w *writer) reset(rw http.ResponseWriter) { *w = writer{w: rw} }

func (w *writer) Header() http.Header { return w.w.Header() }

// WriteHeader passes informational statuses through without beginning the
// response, like net/http. A second final status is passed on too, so
// net/http reports the caller's mistake. The status is recorded after
// the writer underneath took it: net/http panics on one outside 100 to
// 999, and then nothing was written, so the error path may still answer.
func (w *writer) WriteHeader(status int) {
	w.w.WriteHeader(status)
	if !w.started && (status >= 200 || status == http.StatusSwitchingProtocols) {
		w.status, w.started = status, true
	}
}

func (w *writer) Write(p []byte) (int, error) {
	if !w.started {
		w.status, w.started = http.StatusOK, true
	}
	n, err := w.w.Write(p)
	w.size += int64(n)
	return n, err
}

// FlushError sends what was written so far, for http.ResponseController;
// a flush begins the response (with 200 if no status was written).
func (w *writer) FlushError() error {
	if !w.started {
		w.status, w.started = http.StatusOK, true
	}
	return http.NewResponseController(w.w).Flush()
}

// Flush is FlushError for the many libraries that assert http.Flusher.
func (w *writer) Flush() { _ = w.FlushError() }

// Hijack takes the connection over, through http.ResponseController (so
// the writer underneath may itself be a wrapper). A hijacked response is
// recorded as 101 Switching Protocols, as a WebSocket upgrade answers: the
// framework writes nothing on it from then on.
func (w *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.w).Hijack()
	if err == nil {
		w.hijacked = true
		if !w.started {
			w.status, w.started = http.StatusSwitchingProtocols, true
		}
	}
	return c, rw, err
}

// Unwrap gives http.ResponseController the writer underneath, for what
// needs no tracking: read and write deadlines, full duplex.
func (w *writer) Unwrap() http.ResponseWriter { return w.w }

// rawWriter is the writer Raw hands out: the Reply itself under another
// type (no allocation), so that like the Reply it panics once its request
// is over instead of writing into the next request's response, which the
// pooled writer then serves.
type rawWriter Reply

func (rw *rawWriter) tw() *writer { return &(*Reply)(rw).live().tw }

func (rw *rawWriter) Header() http.Header                          { return rw.tw().Header() }
func (rw *rawWriter) WriteHeader(status int)                       { rw.tw().WriteHeader(status) }
func (rw *rawWriter) Write(p []byte) (int, error)                  { return rw.tw().Write(p) }
func (rw *rawWriter) FlushError() error                            { return rw.tw().FlushError() }
func (rw *rawWriter) Flush()                                       { rw.tw().Flush() }
func (rw *rawWriter) Unwrap() http.ResponseWriter                  { return rw.tw().Unwrap() }
func (rw *rawWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return rw.tw().Hijack() }
