// Package tracking holds the http.ResponseWriter that records what
// reached the client: the status, whether the response has begun, the
// body bytes. Burrow writes every reply through one (so it never writes
// after user code did, and its access log and onResponse hooks report what
// was really sent), and hands one to the outermost middleware of a
// context, for what a middleware writes itself.
package tracking

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// Writer records what is written through it to W. Its zero value with W
// set is ready; it keeps Flush and Hijack its own, to know of them, and
// unwraps for the rest (deadlines, full duplex).
type Writer struct {
	W       http.ResponseWriter // the writer underneath
	Size    int64               // body bytes written
	status  int32               // 32 bits keep the struct at four words, in every reply and middleware call
	Started bool                // the final status (or the connection) has gone
}

// Status is the final status written; it is valid once Started.
func (w *Writer) Status() int { return int(w.status) }

// Record records that the response was written with status around w (a
// time-out's answer, say): w reports it from then on. A status outside
// 100 to 999 is not one net/http writes and is not recorded.
func (w *Writer) Record(status int) {
	if status >= 100 && status <= 999 {
		w.status, w.Started = int32(status), true
	}
}

// Reset points w at a new response.
func (w *Writer) Reset(rw http.ResponseWriter) { *w = Writer{W: rw} }

// Header is the header of the response underneath.
func (w *Writer) Header() http.Header { return w.W.Header() }

// WriteHeader passes informational statuses through without beginning the
// response, as net/http does. A second final status is passed on too, so
// the writer underneath reports the caller's mistake. The status is
// recorded after the writer underneath took it: net/http panics on one
// outside 100 to 999, and then nothing was written, so the caller's error
// path may still answer; a writer that does not panic (a recorder) does
// not make such a status the response's.
func (w *Writer) WriteHeader(status int) {
	w.W.WriteHeader(status)
	if !w.Started && (status >= 200 || status == http.StatusSwitchingProtocols) {
		w.Record(status)
	}
}

// Write writes body bytes; the first begins the response with 200 when no
// status was written.
func (w *Writer) Write(p []byte) (int, error) {
	if !w.Started {
		w.status, w.Started = http.StatusOK, true
	}
	n, err := w.W.Write(p)
	w.Size += int64(n)
	return n, err
}

// ReadFrom writes what src yields as body bytes, as Write does, through
// the writer underneath's own ReadFrom when it has one: io.Copy into w
// (http.ServeContent, http.FileServer) then keeps net/http's path to the
// connection's ReadFrom, sendfile for a file. A writer without one is
// written to with io.Copy, through its Write alone.
func (w *Writer) ReadFrom(src io.Reader) (n int64, err error) {
	if !w.Started {
		w.status, w.Started = http.StatusOK, true
	}
	if rf, ok := w.W.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(WriterOnly{w.W}, src)
	}
	w.Size += n
	return n, err
}

// WriterOnly hides every method of its writer but Write, so that io.Copy
// into it writes rather than asks it to ReadFrom: what a writer's own
// ReadFrom does when it has nothing better.
type WriterOnly struct{ io.Writer }

// FlushError sends what was written so far, for http.ResponseController;
// a flush begins the response (with 200 if no status was written).
func (w *Writer) FlushError() error {
	if !w.Started {
		w.status, w.Started = http.StatusOK, true
	}
	return http.NewResponseController(w.W).Flush()
}

// Flush is FlushError for the many libraries that assert http.Flusher.
func (w *Writer) Flush() { _ = w.FlushError() }

// Hijack takes the connection over, through http.ResponseController (so
// the writer underneath may itself be a wrapper). A hijacked response is
// recorded as 101 Switching Protocols, as a WebSocket upgrade answers:
// nothing more is written on it by the framework.
func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.W).Hijack()
	if err == nil && !w.Started {
		w.status, w.Started = http.StatusSwitchingProtocols, true
	}
	return c, rw, err
}

// Unwrap gives http.ResponseController the writer underneath, for what
// needs no tracking: read and write deadlines, full duplex.
func (w *Writer) Unwrap() http.ResponseWriter { return w.W }
