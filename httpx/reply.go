package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/burrow-go/burrow/internal/deadline"
	"github.com/burrow-go/burrow/internal/tracking"
)

// Content types Send chooses. The slices are shared between responses and
// must not be changed; net/http only reads them.
var (
	jsonType   = []string{"application/json; charset=utf-8"}
	textType   = []string{"text/plain; charset=utf-8"}
	binaryType = []string{"application/octet-stream"}
	htmlType   = []string{"text/html; charset=utf-8"}
)

// ContentTypeJSON is the content type of JSON replies.
const ContentTypeJSON = "application/json; charset=utf-8"

// autoLengthLimit is the body size up to which net/http computes
// Content-Length by itself (its pre-chunking buffer): a handler that writes
// the whole body at once and returns gets an exact Content-Length without
// the two allocations of setting it here.
const autoLengthLimit = 2048

// maxKeptBuffer is the largest encoding buffer a pooled Reply keeps.
const maxKeptBuffer = 64 << 10

// hookRef names one send hook of a reply: 1+i for PreSerialization[i],
// -1-i for OnSend[i], 0 for none. (A route with more than 32,767 send
// hooks of a kind is not a case to plan for.)
type hookRef int16

// Reply builds the response to one request. Like Request, it is only
// valid until the handler and the hooks of its request have returned;
// after that every method panics ("httpx.Reply used after its handler
// returned") rather than write into another client's response.
type Reply struct {
	r *reply // nil once the request has ended
}

// reply is what a Reply works on; it lives in an Exchange and is reused
// for the next request.
type reply struct {
	w      http.ResponseWriter // the writer underneath tw
	tw     tracking.Writer     // what the reply is written through
	req    *Request
	hooks  *routePlan // its send hooks; nil for none
	status int
	sent   bool

	self     *Reply  // the handle the send hooks get
	wrote    bool    // the response has begun: a failed Send stays sent
	autoType bool    // Send set the content type, for the onSend hooks
	running  hookRef // the send hook being called
	broken   hookRef // a send hook that panicked: skipped for the error reply

	// writeTimeout bounds writing the reply; see SetWriteTimeout.
	writeTimeout time.Duration
	rawArms      bool // Raw's first write arms writeTimeout (Exchange.BoundRawWrites)

	// beforeWrite, when armed (Exchange.BeforeWrite), runs once right
	// before the next Send writes; x is the exchange it gets.
	beforeWrite func(*Exchange) error
	x           *Exchange

	// validate, when set (Exchange.Validate), is how a 200 of Send is
	// tagged and answered 304.
	validate *Validation
	tag      string // the reply's own tag; "" hashes the body

	out encoding

	// format is the server's error format (SetErrorFormat), kept from
	// one request to the next.
	format ErrorFormat

	// closing is the server's closing context (SetClosing), kept from
	// one request to the next; stream is a stream's join with it.
	closing  context.Context
	stream   *streamClose
	streamed bool // the reply streams: each part arms the write deadline
}

// encoding is a reply's JSON buffer and the encoder writing into it.
type encoding struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (e *encoding) encoder() *json.Encoder {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false) // like JSON.stringify: "<" stays "<"
	}
	return e.enc
}

// encode writes v into the buffer as JSON (an ErrorBody, a Problem and a
// JSONAppender by their own methods) and returns the bytes, which the
// next encode overwrites, and their content type.
func (e *encoding) encode(v any) (body []byte, ctype []string, err error) {
	buf := &e.buf
	buf.Reset()
	ctype = jsonType
	if eb, ok := v.(ErrorBody); ok {
		buf.Write(eb.appendJSON(buf.AvailableBuffer())) // keeps a grown buffer for the next reply
		body = buf.Bytes()
	} else if p, ok := v.(Problem); ok {
		buf.Write(p.appendJSON(buf.AvailableBuffer()))
		body, ctype = buf.Bytes(), problemType
	} else if a, ok := v.(JSONAppender); ok && !nilPointer(v) {
		b, err := a.AppendJSON(buf.AvailableBuffer())
		if err != nil {
			return nil, nil, err
		}
		buf.Write(b) // keeps a grown buffer for the next reply
		body = buf.Bytes()
	} else {
		if err := e.encoder().Encode(v); err != nil {
			return nil, nil, err
		}
		body = buf.Bytes()
		body = body[:len(body)-1] // Encode appends a newline
	}
	return body, ctype, nil
}

// errReplyEnded is what a Reply panics with once its request is over.
var errReplyEnded = errors.New("httpx.Reply used after its handler returned; " +
	"a reply is sent before the handler (or the hook) returns")

// live is the reply's state, or a panic naming the mistake when the
// request is over: the writer would be another request's.
func (rp *Reply) live() *reply {
	if rp.r == nil {
		panic(errReplyEnded)
	}
	return rp.r
}

// reset prepares r for a new response written to w, which self hands to
// handlers.
func (r *reply) reset(w http.ResponseWriter, req *Request, hooks *routePlan, self *Reply) {
	r.w, r.req, r.hooks, r.status, r.sent = w, req, hooks, http.StatusOK, false
	r.tw.Reset(w)
	r.self, r.wrote, r.autoType, r.running, r.broken = self, false, false, 0, 0
	r.writeTimeout, r.rawArms = 0, false
	r.beforeWrite, r.x = nil, nil
	r.validate, r.tag = nil, ""
}

// clear drops every reference r holds and empties its buffer for the next
// reply, dropping it when it grew past what is worth keeping.
func (r *reply) clear() {
	r.endStream()
	r.w, r.req, r.hooks, r.self = nil, nil, nil, nil
	r.beforeWrite, r.x = nil, nil
	r.validate, r.tag = nil, ""
	r.tw.Reset(nil)
	if r.out.buf.Cap() > maxKeptBuffer {
		r.out = encoding{}
	}
	r.out.buf.Reset()
}

// SetWriteTimeout bounds how long writing this reply may take: right
// before Send or ServeContent writes, and before SSE, Stream and each
// event, comment or chunk of theirs, it sets the connection's write
// deadline d from now (0, a new reply's value, sets none); a stream's
// wait between parts is not bounded. A client that stops reading then
// loses its connection when the deadline passes, instead of holding the
// handler's goroutine and the reply for as long as it likes. The app
// package sets the server's reply time-out on every request; a handler
// that sends a very large reply may raise it for that reply. Writes
// through Raw are not covered.
func (rp *Reply) SetWriteTimeout(d time.Duration) { rp.live().writeTimeout = d }

// Raw is the reply's http.ResponseWriter, for code written for net/http.
// Writing to it bypasses the send hooks, but the reply knows what was
// written: once a status or a byte has gone through it, Sent is true, Send
// returns ErrAlreadySent, Status is the status written, and the framework
// writes nothing more (an error returned after that is logged, not
// appended). http.NewResponseController(rep.Raw()) reaches Flush, Hijack,
// the read and write deadlines and full duplex of the connection's writer,
// and the writer is an http.Flusher and an http.Hijacker itself (Hijack
// returning an error wrapping http.ErrNotSupported where the connection
// cannot be taken over). Like the Reply, it is only valid until the
// handler returns: after that every method panics.
func (rp *Reply) Raw() http.ResponseWriter {
	rp.live()
	return (*rawWriter)(rp)
}

// Request is the request this reply answers.
func (rp *Reply) Request() *Request { return rp.live().req }

// Code sets the status code.
func (rp *Reply) Code(status int) *Reply {
	rp.live().status = status
	return rp
}

// Status is the status code that will be sent, or, once the response has
// begun (through Send or Raw), the one that was: 101 for a hijacked
// connection.
func (rp *Reply) Status() int {
	r := rp.live()
	if r.tw.Started {
		return r.tw.Status()
	}
	return r.status
}

// Header is the response header map.
func (rp *Reply) Header() http.Header { return rp.live().w.Header() }

// SetHeader sets one response header.
func (rp *Reply) SetHeader(key, value string) *Reply {
	rp.live().w.Header().Set(key, value)
	return rp
}

// Type sets the content type. A JSON type gets "; charset=utf-8" appended
// when it names no charset.
func (rp *Reply) Type(contentType string) *Reply {
	r := rp.live()
	r.w.Header()["Content-Type"] = typeValue(contentType)
	return rp
}

// typeValue is the header value of contentType, with the charset Type
// adds. The common types share one slice each, as Send's do, so setting
// them costs no allocation.
func typeValue(contentType string) []string {
	switch contentType {
	case "application/json", ContentTypeJSON:
		return jsonType
	case "text/plain; charset=utf-8":
		return textType
	case "text/html; charset=utf-8":
		return htmlType
	}
	if strings.Contains(contentType, "json") && !strings.Contains(contentType, "charset") {
		contentType += "; charset=utf-8"
	}
	return []string{contentType}
}

// Sent reports whether Send has been called or the response has begun
// through Raw.
func (rp *Reply) Sent() bool {
	r := rp.live()
	return r.sent || r.tw.Started
}

// Send writes the response:
//   - nil writes an empty body;
//   - a string writes text/plain; charset=utf-8;
//   - a []byte writes application/octet-stream;
//   - a json.RawMessage writes it as JSON;
//   - a JSONAppender writes itself as JSON;
//   - anything else is encoded as JSON (application/json; charset=utf-8),
//     without HTML escaping and without a trailing newline.
//
// A content type set with Type or Header wins. Content-Length is always
// exact. The status must be a final one, 200 to 999. Send returns
// ErrAlreadySent when called twice or after the response began through
// Raw, and the encoding, hook or status error otherwise; the caller
// returns it to the framework, which answers with the error handler.
//
// A panic in an encoder or a send hook leaves the reply unsent, so the
// framework's error path can answer; a hook that panicked is skipped by
// the next Send of this reply (the error reply).
func (rp *Reply) Send(v any) error {
	r := rp.live()
	if r.sent || r.tw.Started {
		return ErrAlreadySent
	}
	// Sent from here on, so a hook that calls Send again gets
	// ErrAlreadySent; unsent again if nothing gets written, so the error
	// handler can answer.
	r.sent = true
	done := false
	defer func() {
		if !done { // a panic
			r.unsend()
		}
	}()
	err := r.send(v)
	if err != nil {
		r.unsend()
	}
	done = true
	return err
}

// unsend undoes a Send that failed before the response began.
func (r *reply) unsend() {
	if r.wrote {
		return
	}
	r.sent, r.beforeWrite = false, nil
	if r.autoType {
		delete(r.w.Header(), "Content-Type")
		r.autoType = false
	}
	if r.running != 0 {
		r.broken, r.running = r.running, 0
	}
}

func (r *reply) send(v any) error {
	var body []byte
	var ctype []string
	onSend := r.hooks != nil && len(r.hooks.OnSend) > 0
	switch p := v.(type) {
	case nil:
	case string:
		if onSend {
			body, ctype = []byte(p), textType // the hooks may keep it
		} else {
			body, ctype = r.bytesOf(p), textType
		}
	case []byte:
		body, ctype = p, binaryType
	case json.RawMessage:
		body, ctype = p, jsonType
	default:
		if r.hooks != nil {
			for i, h := range r.hooks.PreSerialization {
				if !r.enter(hookRef(1 + i)) {
					continue
				}
				nv, err := h(r.req, r.self, v)
				r.running = 0
				if err != nil {
					return err
				}
				v = nv
			}
		}
		var err error
		if body, ctype, err = r.out.encode(v); err != nil {
			return err
		}
		if onSend {
			// The buffer serves the next reply; a hook may keep the body
			// (an async logger, a cache). Only routes with onSend hooks
			// pay for the copy.
			body = bytes.Clone(body)
		}
	}
	if onSend {
		// The hooks see the content type the reply will have (a
		// compression or ETag hook tells JSON from text by it).
		if _, set := r.w.Header()["Content-Type"]; !set && ctype != nil && len(body) > 0 {
			r.w.Header()["Content-Type"], r.autoType = ctype, true
		}
		for i, h := range r.hooks.OnSend {
			if !r.enter(hookRef(-1 - i)) {
				continue
			}
			nb, err := h(r.req, r.self, body)
			r.running = 0
			if err != nil {
				return err
			}
			body = nb
		}
		if r.autoType && len(body) == 0 {
			delete(r.w.Header(), "Content-Type") // as for any empty body
		}
	}
	if err := r.finalStatus("Send"); err != nil {
		return err
	}
	if f := r.beforeWrite; f != nil {
		r.beforeWrite = nil
		if err := f(r.x); err != nil {
			return err
		}
	}
	if r.validate != nil && r.status == http.StatusOK {
		// After the commit: a commit that fails answers with no trace
		// of the success reply's validators.
		body = r.validated(body)
	}
	r.wrote = true
	r.write(body, ctype)
	return nil
}

// finalStatus refuses a status the reply cannot write before what (the
// method about to write it) begins the response: net/http panics on one
// outside 100 to 999, and an informational 1xx is not a reply (the
// response would begin with 200 while the hooks and the log report it).
func (r *reply) finalStatus(what string) error {
	if r.status < 200 || r.status > 999 {
		return fmt.Errorf("%w %d: %s writes a final status, 200 to 999", ErrInvalidStatus, r.status, what)
	}
	return nil
}

// enter marks hook h as running, or reports false when it panicked on an
// earlier Send of this reply.
func (r *reply) enter(h hookRef) bool {
	if h == r.broken {
		return false
	}
	r.running = h
	return true
}

// nilPointer reports whether v is a nil pointer, which is encoded as null
// (as encoding/json does) rather than asked to append itself.
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// bytesOf copies s into the reply's buffer, so sending a string does not
// allocate.
func (r *reply) bytesOf(s string) []byte {
	r.out.buf.Reset()
	r.out.buf.WriteString(s)
	return r.out.buf.Bytes()
}

// zeroLength is shared by every empty HEAD reply: net/http only reads
// header values, so it need not cost an allocation.
var zeroLength = []string{"0"}

func (r *reply) write(body []byte, ctype []string) {
	h := r.w.Header()
	if ctype != nil && len(body) > 0 {
		if _, set := h["Content-Type"]; !set {
			h["Content-Type"] = ctype
		}
	}
	switch {
	case len(body) == 0:
		// net/http answers "content-length: 0" for a handler that wrote
		// nothing, except to HEAD, where it cannot know.
		if r.req.isHead() {
			h["Content-Length"] = zeroLength
		}
	case len(body) > autoLengthLimit:
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	// Armed for every reply, even an empty one: behind replies a client
	// left unread, writing a header blocks too.
	r.armWrite()
	if !bodyAllowed(r.status) {
		delete(h, "Content-Length")
		delete(h, "Content-Type")
		r.tw.WriteHeader(r.status)
		return
	}
	r.tw.WriteHeader(r.status)
	if len(body) > 0 {
		_, _ = r.tw.Write(body) // a write error means the client is gone
	}
}

// armWrite sets the connection's write deadline the reply time-out from
// now, before the reply (or a stream's next part) is written. net/http's
// ResponseWriter sets it on the connection, also from under the writers
// that wrap it (a middleware's, a request time-out's); others have no
// connection to bound.
//
// Once the server began to close, a stream's deadline is no later than
// the one the close set (streamClose): a last event gets that long.
//
// A time-out of deadline.LooseReply or more may end up to
// deadline.ReplySlack early: the connection keeps the deadline of the
// reply before rather than move it by microseconds.
func (r *reply) armWrite() {
	if r.stream != nil {
		if by := r.stream.deadline(); !by.IsZero() {
			if r.writeTimeout > 0 {
				if t := time.Now().Add(r.writeTimeout); t.Before(by) {
					by = t
				}
			}
			deadline.SetWrite(r.w, by)
			return
		}
	}
	if r.writeTimeout > 0 {
		deadline.SetReply(r.w, time.Now().Add(r.writeTimeout), r.writeTimeout)
	}
}

// bodyAllowed reports whether a response with status may carry a body
// (RFC 9110: not 1xx, 204 or 304).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// SendError sets err's status and sends its error body, the body the
// default error handler writes: in the server's ErrorFormat, Burrow's
// Fastify-shaped ErrorBody unless it answers with problem details, and
// the text of a 5xx error that is not an *Error hidden unless it shows
// it. Like any Send it runs the send hooks.
func (rp *Reply) SendError(err error) error {
	r := rp.live()
	status, body := r.format.Body(err, r.req.Raw())
	r.status = status
	return rp.Send(body)
}
