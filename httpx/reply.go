package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Content types Send chooses. The slices are shared between responses and
// must not be changed; net/http only reads them.
var (
	jsonType   = []string{"application/json; charset=utf-8"}
	textType   = []string{"text/plain; charset=utf-8"}
	binaryType = []string{"application/octet-stream"}
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

// SendHooks are the send-side hooks of a route. The app package installs
// them; a nil field is skipped.
type SendHooks struct {
	// PreSerialization may replace a payload that is about to be encoded as
	// JSON.
	PreSerialization func(r *Reply, payload any) (any, error)
	// OnSend may replace the encoded body.
	OnSend func(r *Reply, body []byte) ([]byte, error)
}

// Reply builds the response to one request. Like Request, it is reused
// after the request ends.
type Reply struct {
	w      http.ResponseWriter
	req    *Request
	hooks  *SendHooks
	status int
	sent   bool

	// writeTimeout bounds writing the reply; see SetWriteTimeout.
	writeTimeout time.Duration

	buf bytes.Buffer
	enc *json.Encoder
}

// Reset prepares r for a new response written to w.
func (r *Reply) Reset(w http.ResponseWriter, req *Request, hooks *SendHooks) {
	r.w, r.req, r.hooks, r.status, r.sent = w, req, hooks, http.StatusOK, false
	if r.enc == nil {
		r.enc = json.NewEncoder(&r.buf)
		r.enc.SetEscapeHTML(false) // like JSON.stringify: "<" stays "<"
	}
}

// Clear drops every reference r holds.
func (r *Reply) Clear() {
	r.w, r.req, r.hooks = nil, nil, nil
	if r.buf.Cap() > maxKeptBuffer {
		r.buf = bytes.Buffer{}
		r.enc = nil
	}
	r.buf.Reset()
}

// SetHooks replaces the send-side hooks, for the error and not-found paths.
func (r *Reply) SetHooks(h *SendHooks) { r.hooks = h }

// SetWriteTimeout bounds how long writing this reply may take: right
// before Send writes, it sets the connection's write deadline d from now
// (0, the zero Reply's value, sets none). A client that stops reading then
// loses its connection when the deadline passes, instead of holding the
// handler's goroutine and the reply for as long as it likes. The app
// package sets the server's reply time-out on every request; a handler
// that sends a very large reply may raise it for that reply. Writes
// through Raw are not covered.
func (r *Reply) SetWriteTimeout(d time.Duration) { r.writeTimeout = d }

// Raw is the underlying http.ResponseWriter. Writing to it directly
// bypasses hooks; call Hijacked-style code only when you mean it.
func (r *Reply) Raw() http.ResponseWriter { return r.w }

// Request is the request this reply answers.
func (r *Reply) Request() *Request { return r.req }

// Code sets the status code.
func (r *Reply) Code(status int) *Reply {
	r.status = status
	return r
}

// Status is the status code that will be (or was) sent.
func (r *Reply) Status() int { return r.status }

// Header is the response header map.
func (r *Reply) Header() http.Header { return r.w.Header() }

// SetHeader sets one response header.
func (r *Reply) SetHeader(key, value string) *Reply {
	r.w.Header().Set(key, value)
	return r
}

// Type sets the content type. A JSON type gets "; charset=utf-8" appended
// when it names no charset.
func (r *Reply) Type(contentType string) *Reply {
	if strings.Contains(contentType, "json") && !strings.Contains(contentType, "charset") {
		contentType += "; charset=utf-8"
	}
	r.w.Header()["Content-Type"] = []string{contentType}
	return r
}

// Sent reports whether Send has been called.
func (r *Reply) Sent() bool { return r.sent }

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
// exact. Send returns ErrAlreadySent when called twice, and the encoding
// or hook error otherwise; the caller returns it to the framework, which
// answers with the error handler.
func (r *Reply) Send(v any) error {
	if r.sent {
		return ErrAlreadySent
	}
	// Sent from here on, so a hook that calls Send again gets
	// ErrAlreadySent; unsent again if nothing gets written, so the error
	// handler can answer.
	r.sent = true
	if err := r.send(v); err != nil {
		r.sent = false
		return err
	}
	return nil
}

func (r *Reply) send(v any) error {
	var body []byte
	var ctype []string
	switch p := v.(type) {
	case nil:
	case string:
		body, ctype = r.bytesOf(p), textType
	case []byte:
		body, ctype = p, binaryType
	case json.RawMessage:
		body, ctype = p, jsonType
	default:
		if r.hooks != nil && r.hooks.PreSerialization != nil {
			nv, err := r.hooks.PreSerialization(r, v)
			if err != nil {
				return err
			}
			v = nv
		}
		r.buf.Reset()
		if a, ok := v.(JSONAppender); ok && !nilPointer(v) {
			b, err := a.AppendJSON(r.buf.AvailableBuffer())
			if err != nil {
				return err
			}
			r.buf.Write(b) // keeps a grown buffer for the next reply
			body = r.buf.Bytes()
		} else {
			if err := r.enc.Encode(v); err != nil {
				return err
			}
			body = r.buf.Bytes()
			body = body[:len(body)-1] // Encode appends a newline
		}
		ctype = jsonType
	}
	if r.hooks != nil && r.hooks.OnSend != nil {
		nb, err := r.hooks.OnSend(r, body)
		if err != nil {
			return err
		}
		body = nb
	}
	r.write(body, ctype)
	return nil
}

// nilPointer reports whether v is a nil pointer, which is encoded as null
// (as encoding/json does) rather than asked to append itself.
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// bytesOf copies s into the reply's buffer, so sending a string does not
// allocate.
func (r *Reply) bytesOf(s string) []byte {
	r.buf.Reset()
	r.buf.WriteString(s)
	return r.buf.Bytes()
}

// zeroLength is shared by every empty HEAD reply: net/http only reads
// header values, so it need not cost an allocation.
var zeroLength = []string{"0"}

func (r *Reply) write(body []byte, ctype []string) {
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
		if r.req != nil && r.req.raw != nil && r.req.raw.Method == http.MethodHead {
			h["Content-Length"] = zeroLength
		}
	case len(body) > autoLengthLimit:
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	if r.writeTimeout > 0 {
		// Armed for every reply, even an empty one: behind replies a
		// client left unread, writing a header blocks too. net/http's
		// ResponseWriter sets it on the connection; others have no
		// connection to bound.
		if dw, ok := r.w.(writeDeadliner); ok {
			_ = dw.SetWriteDeadline(time.Now().Add(r.writeTimeout))
		}
	}
	if !bodyAllowed(r.status) {
		delete(h, "Content-Length")
		delete(h, "Content-Type")
		r.w.WriteHeader(r.status)
		return
	}
	r.w.WriteHeader(r.status)
	if len(body) > 0 {
		_, _ = r.w.Write(body) // a write error means the client is gone
	}
}

// writeDeadliner is implemented by net/http's ResponseWriter (it is what
// http.ResponseController uses), without the controller's allocation.
type writeDeadliner interface {
	SetWriteDeadline(deadline time.Time) error
}

// bodyAllowed reports whether a response with status may carry a body
// (RFC 9110: not 1xx, 204 or 304).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// SendError writes the Fastify-shaped error body for err, bypassing the
// route's send hooks' PreSerialization. It is the default error handler's
// last step and the fallback when an error handler fails.
func (r *Reply) SendError(err error) error {
	body := BodyOf(err)
	r.status = body.StatusCode
	return r.Send(body)
}
