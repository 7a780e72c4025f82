package httpx

import (
	"bufio"
	"io"
	"net"
	"net/http"

	"github.com/burrow-go/burrow/internal/tracking"
)

// rawWriter is the writer Raw hands out: the Reply itself under another
// type (no allocation), so that like the Reply it panics once its request
// is over instead of writing into the next request's response, which the
// pooled writer then serves.
type rawWriter Reply

func (rw *rawWriter) tw() *tracking.Writer { return &(*Reply)(rw).live().tw }

func (rw *rawWriter) Header() http.Header                          { return rw.tw().Header() }
func (rw *rawWriter) WriteHeader(status int)                       { rw.tw().WriteHeader(status) }
func (rw *rawWriter) Write(p []byte) (int, error)                  { return rw.tw().Write(p) }
func (rw *rawWriter) ReadFrom(src io.Reader) (int64, error)        { return rw.tw().ReadFrom(src) }
func (rw *rawWriter) FlushError() error                            { return rw.tw().FlushError() }
func (rw *rawWriter) Flush()                                       { rw.tw().Flush() }
func (rw *rawWriter) Unwrap() http.ResponseWriter                  { return rw.tw().Unwrap() }
func (rw *rawWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return rw.tw().Hijack() }
