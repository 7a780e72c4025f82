package compress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/burrow-go/burrow/internal/negotiate"
)

// Writer states: what the answer's bytes do.
const (
	pending  = iota // not decided: the body is buffered up to the minimum size
	identity        // written as they come
	encoding        // through the encoder
	headOnly        // compressed HEAD: headers sent, bytes dropped
)

// writer is the response writer the middleware hands on: it decides at
// the first moment it can — the status, the headers, the minimum size
// reached, a flush, the end — whether the answer is compressed, then
// writes it through the encoder or as it is.
//
// A writer is an answer's own allocation, never pooled: Burrow's reply
// still reaches the writer the middleware handed on after the middleware
// returns (ending a stream, it sets the connection's write deadline
// through Unwrap), and a pooled one would by then be another answer's.
// What costs — the encoders, the buffer — is pooled, and given back when
// the middleware returns.
type writer struct {
	w      http.ResponseWriter
	m      *middleware
	coding *coding // the negotiated coding; nil for none
	enc    encoder
	buf    []byte
	pooled *[]byte // where buf came from
	status int
	state  int8
	head   bool
	off    bool // Disable was called
	wrote  bool // a final status was recorded
}

// buffers hold answers until they reach the minimum size.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// buffer appends p to the pending body, taking a pooled buffer first.
func (cw *writer) buffer(p []byte) {
	if cw.buf == nil {
		cw.pooled = buffers.Get().(*[]byte)
		cw.buf = (*cw.pooled)[:0]
	}
	cw.buf = append(cw.buf, p...)
}

func (cw *writer) Header() http.Header { return cw.w.Header() }

// Unwrap gives http.ResponseController what it needs beyond Flush
// (deadlines, full duplex, Hijack).
func (cw *writer) Unwrap() http.ResponseWriter { return cw.w }

func (cw *writer) WriteHeader(status int) {
	if cw.state == identity {
		cw.w.WriteHeader(status) // a second one: net/http logs it as superfluous
		return
	}
	if cw.wrote || cw.state != pending {
		return // the first status stands, as net/http has it
	}
	if status < 200 { // informational (103 Early Hints): the answer is still to come
		cw.w.WriteHeader(status)
		return
	}
	cw.status, cw.wrote = status, true
	h := cw.w.Header()
	switch {
	case status == http.StatusNoContent || status == http.StatusNotModified:
		if status == http.StatusNotModified {
			cw.notModified(h)
		}
		cw.pass()
	case status == http.StatusPartialContent || has(h, "Content-Encoding") || has(h, "Content-Range"):
		if status == http.StatusPartialContent && cw.m.cfg.allowed(h.Get("Content-Type")) {
			// Ranges are of the identity bytes, but the whole answer to
			// the same request without Range varies: so does a range of it.
			cw.vary(h)
		}
		cw.pass()
	case has(h, "Content-Type"):
		if !cw.m.cfg.allowed(h.Get("Content-Type")) {
			cw.pass()
			return
		}
		cw.vary(h)
		switch n, ok := contentLength(h); {
		case cw.coding == nil || cw.off || (ok && n < int64(cw.m.cfg.minSize)):
			cw.pass()
		case ok:
			cw.compress()
		}
	}
}

func (cw *writer) Write(p []byte) (int, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	switch cw.state {
	case identity:
		return cw.w.Write(p)
	case encoding:
		return cw.enc.Write(p)
	case headOnly:
		return len(p), nil
	}
	if len(cw.buf)+len(p) < cw.m.cfg.minSize || cw.m.cfg.minSize == 0 && len(p) == 0 {
		cw.buffer(p)
		return len(p), nil
	}
	body := p // written at once: no copy
	if len(cw.buf) > 0 {
		cw.buffer(p)
		body = cw.buf
	}
	if err := cw.decide(body, false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// FlushError begins the answer if it is still pending — a flush says the
// handler streams, so an answer of an allowed type is compressed whatever
// its size — and sends what the encoder holds.
func (cw *writer) FlushError() error {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.state == pending {
		if err := cw.decide(cw.buf, true); err != nil {
			return err
		}
	}
	if cw.state == encoding {
		if err := cw.enc.Flush(); err != nil {
			return err
		}
	}
	return flush(cw.w)
}

// flush flushes w as http.ResponseController would, without making one.
func flush(w http.ResponseWriter) error {
	for {
		switch f := w.(type) {
		case interface{ FlushError() error }:
			return f.FlushError()
		case http.Flusher:
			f.Flush()
			return nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = f.Unwrap()
		default:
			return fmt.Errorf("compress: flush: %w", http.ErrNotSupported)
		}
	}
}

// ReadFrom keeps the writer underneath's ReadFrom (sendfile, for
// ServeContent) for an answer sent as it is.
func (cw *writer) ReadFrom(src io.Reader) (int64, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if rf, ok := cw.w.(io.ReaderFrom); ok && cw.state == identity {
		return rf.ReadFrom(src)
	}
	return io.Copy(writeOnly{cw}, src)
}

// writeOnly hides ReadFrom from io.Copy.
type writeOnly struct{ io.Writer }

func (cw *writer) Flush() { _ = cw.FlushError() }

// Hijack hands the connection over, for a handler that upgrades it
// (WebSocket): only before anything was written.
func (cw *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if cw.wrote {
		return nil, nil, errors.New("compress: hijack after the answer began")
	}
	cw.state = identity
	return http.NewResponseController(cw.w).Hijack()
}

// decide settles a pending answer whose body so far is body: compressed
// when its type is allowed and either the body reached the minimum size
// or streaming says so. The body is then written.
func (cw *writer) decide(body []byte, streaming bool) error {
	h := cw.w.Header()
	ct, typed := h["Content-Type"]
	if !typed && len(body) > 0 {
		// What net/http would send; it must be known before the bytes
		// are encoded, or net/http would sniff the encoded ones.
		ct = []string{http.DetectContentType(body)}
		h["Content-Type"] = ct
	}
	allowed := len(ct) > 0 && cw.m.cfg.allowed(ct[0])
	if allowed {
		cw.vary(h)
	}
	if allowed && cw.coding != nil && !cw.off && (len(body) >= cw.m.cfg.minSize && len(body) > 0 || streaming) {
		cw.compress()
	} else {
		cw.pass()
	}
	var err error
	if len(body) > 0 {
		_, err = cw.Write(body) // now identity, encoding or headOnly
	}
	cw.buf = cw.buf[:0]
	return err
}

// pass sends the recorded status: the answer goes as it is.
func (cw *writer) pass() {
	cw.state = identity
	cw.w.WriteHeader(cw.status)
}

// compress sends the recorded status with the coding's headers.
func (cw *writer) compress() {
	h := cw.w.Header()
	h["Content-Encoding"] = cw.coding.value
	delete(h, "Content-Length")
	delete(h, "Accept-Ranges") // ranges of the encoded bytes are not on offer
	weaken(h)
	cw.w.WriteHeader(cw.status)
	if cw.head {
		cw.state = headOnly
		return
	}
	cw.state = encoding
	cw.enc = cw.coding.get(cw.w)
}

// weaken makes the answer's ETag weak: the encoded bytes differ from the
// identity answer's, which a strong tag would promise.
func weaken(h http.Header) {
	if tag := h["Etag"]; len(tag) == 1 && !strings.HasPrefix(tag[0], "W/") {
		h["Etag"] = []string{"W/" + tag[0]}
	}
}

// notModified gives a 304 the headers its 200 would have had (RFC 9110
// §15.4.5): Vary, and the weak ETag of a compressed answer when the
// request negotiated a coding, so that a cache holding that answer
// freshens it. A 304 has no body to tell the minimum size by, nor, most
// often, a type: a 200 sent as it is (too small) had the strong tag,
// which the weak one still matches, comparing weakly as a cache does.
func (cw *writer) notModified(h http.Header) {
	cw.vary(h)
	ct, typed := h["Content-Type"]
	if cw.coding != nil && !cw.off && (!typed || len(ct) > 0 && cw.m.cfg.allowed(ct[0])) {
		weaken(h)
	}
}

// vary adds Accept-Encoding to Vary once; not when compression is off
// for the answer, which then does not vary with it.
func (cw *writer) vary(h http.Header) {
	if cw.off {
		return
	}
	negotiate.Vary(h)
}

// finish ends the answer once the handler returned: a pending one is
// decided with what was buffered, an encoded one closed.
func (cw *writer) finish() {
	if cw.state == pending && cw.wrote || len(cw.buf) > 0 {
		_ = cw.decide(cw.buf, false) // a failed write: the client is gone
	}
	if cw.enc != nil {
		_ = cw.enc.Close()
	}
}

// release gives the encoder and the buffer back to their pools. The
// writer keeps its ResponseWriter, which Burrow may still reach.
func (cw *writer) release() {
	if cw.enc != nil {
		cw.coding.put(cw.enc)
		cw.enc = nil
	}
	if cw.pooled != nil {
		if cap(cw.buf) <= 64<<10 {
			*cw.pooled = cw.buf[:0]
			buffers.Put(cw.pooled)
		}
		cw.pooled, cw.buf = nil, nil
	}
	cw.state = identity // what is written from now on goes as it is
}

func has(h http.Header, key string) bool {
	v, ok := h[key]
	return ok && (len(v) == 0 || v[0] != "")
}

// contentLength is the Content-Length the handler set, if valid.
func contentLength(h http.Header) (int64, bool) {
	v := h["Content-Length"]
	if len(v) != 1 || v[0] == "" || len(v[0]) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v[0]); i++ {
		c := v[0][i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Disable turns compression off for the answer w writes, when called
// before it begins: a handler that reflects user input next to a secret
// in one body (BREACH) calls Disable(rep.Raw()). It reports whether w
// was going through the plugin's writer (found through Unwrap).
func Disable(w http.ResponseWriter) bool {
	for w != nil {
		if cw, ok := w.(*writer); ok {
			cw.off = true
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	return false
}
