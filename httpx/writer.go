package httpx

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/internal/tracking"
)

// rawWriter is the writer Raw hands out: the Reply itself under another
// type (no allocation), so that like the Reply it panics once its request
// is over instead of writing into the next request's response, which the
// pooled writer then serves.
type rawWriter Reply

func (rw *rawWriter) tw() *tracking.Writer { return &(*Reply)(rw).live().tw }

// writing is tw for a write: the first one of a reply whose Raw writes
// are bounded (Exchange.BoundRawWrites) arms the write deadline first.
func (rw *rawWriter) writing() *tracking.Writer {
	r := (*Reply)(rw).live()
	if r.rawArms {
		r.rawArms = false
		r.armWrite()
	}
	return &r.tw
}

func (rw *rawWriter) Header() http.Header                          { return rw.tw().Header() }
func (rw *rawWriter) WriteHeader(status int)                       { rw.writing().WriteHeader(status) }
func (rw *rawWriter) Write(p []byte) (int, error)                  { return rw.writing().Write(p) }
func (rw *rawWriter) ReadFrom(src io.Reader) (int64, error)        { return rw.writing().ReadFrom(src) }
func (rw *rawWriter) FlushError() error                            { return rw.writing().FlushError() }
func (rw *rawWriter) Flush()                                       { rw.writing().Flush() }
func (rw *rawWriter) Unwrap() http.ResponseWriter                  { return rw.tw().Unwrap() }
func (rw *rawWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return rw.tw().Hijack() }

// SetWriteDeadline sets the connection's write deadline, as
// http.ResponseController does through Unwrap; the handler's own deadline
// wins over the one a bounded reply's first write would arm.
func (rw *rawWriter) SetWriteDeadline(t time.Time) error {
	r := (*Reply)(rw).live()
	r.rawArms = false
	return http.NewResponseController(r.tw.Unwrap()).SetWriteDeadline(t)
}
