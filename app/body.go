package app

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/deadline"
)

// bodyBuf is a pooled buffer a body is read into, with the limit reader
// of the read, so that reading a body allocates nothing once the pool is
// warm.
type bodyBuf struct {
	bytes.Buffer
	lr limitedReader
}

var bodyBufs = sync.Pool{New: func() any { return new(bodyBuf) }}

// maxKeptBody is the largest buffer the pool keeps, so that a few large
// bodies do not stay pinned.
const maxKeptBody = 64 << 10

func getBodyBuf() *bodyBuf {
	b := bodyBufs.Get().(*bodyBuf)
	b.Reset()
	return b
}

// release returns b to the pool; nothing read into it may be used after.
func (b *bodyBuf) release() {
	b.lr = limitedReader{}
	if b.Cap() <= maxKeptBody {
		bodyBufs.Put(b)
	}
}

// maxPresize bounds how much a body's announced length reserves before
// its bytes arrive: as much as a client may already pin with its
// headers (DefaultMaxHeaderBytes). Larger bodies grow as they come.
const maxPresize = 16 << 10

// read reads r to its end. size is the body's announced length (-1 when
// unknown): the buffer is grown once to hold it and the room ReadFrom
// wants to see the end, instead of doubling its way there.
func (b *bodyBuf) read(r io.Reader, size int64) error {
	if size > 0 && size <= maxPresize {
		b.Grow(int(size) + bytes.MinRead)
	}
	_, err := b.ReadFrom(r)
	return err
}

// parse decodes body, limited to limit bytes, into v with the parser.
// The default JSON parser reads through the pooled buffer's own limit
// reader; a parser added by the user gets one of its own, since it may
// keep it.
func (d *parserDef) parse(req *httpx.Request, body io.Reader, limit int64, v any) error {
	if d.json == nil {
		return d.fn(req, &limitedReader{r: body, n: limit}, v)
	}
	buf := getBodyBuf()
	defer buf.release()
	buf.lr = limitedReader{r: body, n: limit}
	if err := buf.read(&buf.lr, req.Raw().ContentLength); err != nil {
		return err
	}
	return d.json.decode(buf.Bytes(), v)
}

// armBodyDeadline bounds how long the body of r may take to arrive: a
// body trickled in byte by byte holds a goroutine and a connection. It
// reports whether a read deadline was set, which the caller clears once
// the body is read. Writers that cannot set deadlines (Inject's) are not
// bounded.
func armBodyDeadline(w http.ResponseWriter, r *http.Request, timeout time.Duration) bool {
	until := time.Now().Add(timeout)
	if !deadline.SetRead(w, until) {
		return false
	}
	if r.Header.Get("Expect") != "" {
		// net/http writes "100 Continue" on the first read; to a client
		// that reads nothing, that write would block with no deadline
		// (the reply's is not set yet).
		deadline.SetWrite(w, until)
	}
	return true
}

// clearReadDeadline clears the read deadline armBodyDeadline set.
func clearReadDeadline(w http.ResponseWriter) { deadline.SetRead(w, time.Time{}) }
