package httpx

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// sseType and noCache are the headers of an event stream.
var (
	sseType = []string{"text/event-stream"}
	noCache = []string{"no-cache"}
)

// ErrEventField is returned by EventStream.Send for an ID or an Event
// name holding a line break (or an ID holding NUL), which would end the
// field early and let the rest be read as another field.
var ErrEventField = errors.New("event field holds a line break")

// Event is one Server-Sent Event. Empty fields are left out, but for
// Data: an event with a type or with no other field gets a "data:" line
// even when Data is empty, since a client dispatches no event without
// one (so an Event of only ID or Retry sets them without an event).
// Data is sent as one "data:" line per line it holds (CRLF, CR and LF
// all end a line), so it may span lines.
type Event struct {
	ID    string        // the client's Last-Event-ID once received
	Event string        // the event's type; the client's default is "message"
	Data  string        // the payload
	Retry time.Duration // how long the client waits before reconnecting; 0 for the default
}

// EventStream is a Server-Sent Events response (text/event-stream), made
// by Reply.SSE. Each Send and Comment is flushed to the client at once.
// Like the Reply, it belongs to its handler.
type EventStream struct {
	rp  *Reply
	ctx context.Context
	buf []byte
}

// SSE begins a Server-Sent Events response: status 200, content type
// text/event-stream, cache-control no-cache, flushed at once so the
// client knows the stream is open. Like Raw, it bypasses the send hooks:
// no PreSerialization or OnSend hook sees its events. The stream's Context ends when the
// client goes away, when the server begins to close, or at the request
// time-out of a server that has one (the request's Context, from then
// on, too); context.Cause tells them apart: context.Canceled for the
// client, ErrServerClosing for the server, a cause matching
// context.DeadlineExceeded (errors.Is) for the time-out, so the handler
// may send a last event before it returns. Once the server began to close,
// the stream's writes get 500 ms (a write deadline on its connection,
// which also interrupts a write already blocked on a client that stopped
// reading). A HEAD request (a GET route's HEAD twin) gets the
// headers only: the stream's Context is done when SSE returns, its cause
// wrapping context.Canceled, and Send returns that cause, writing
// nothing. SSE returns ErrAlreadySent once the reply has begun, and the
// connection's error if the flush fails.
func (rp *Reply) SSE() (*EventStream, error) {
	r := rp.live()
	if r.sent || r.tw.Started {
		return nil, ErrAlreadySent
	}
	ctx := r.beginStream()
	h := r.tw.Header()
	h["Content-Type"] = sseType
	h["Cache-Control"] = noCache
	r.sent = true
	r.tw.WriteHeader(200)
	if err := r.tw.FlushError(); err != nil {
		return nil, err
	}
	return &EventStream{rp: rp, ctx: ctx}, nil
}

// Context is done when the client has gone away (context.Cause is
// context.Canceled), at once for a HEAD request (a cause wrapping
// context.Canceled), when the server is closing (ErrServerClosing), or at
// the request time-out (a cause wrapping context.DeadlineExceeded).
func (es *EventStream) Context() context.Context { return es.ctx }

// Send writes e and flushes it.
func (es *EventStream) Send(e Event) error {
	if strings.ContainsAny(e.ID, "\r\n\x00") || strings.ContainsAny(e.Event, "\r\n") {
		return ErrEventField
	}
	b := es.buf[:0]
	if e.ID != "" {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Event != "" {
		b = append(append(append(b, "event: "...), e.Event...), '\n')
	}
	if e.Retry > 0 {
		b = strconv.AppendInt(append(b, "retry: "...), e.Retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	if e.Data != "" || e.Event != "" || (e.ID == "" && e.Retry <= 0) {
		b = appendLines(b, "data: ", e.Data)
	}
	return es.write(append(b, '\n'))
}

// Comment writes a comment line (": text"), which clients ignore: a
// heartbeat that keeps proxies from closing an idle stream. A text
// spanning lines is sent as one comment per line.
func (es *EventStream) Comment(text string) error {
	return es.write(append(appendLines(es.buf[:0], ": ", text), '\n'))
}

// appendLines appends text to b as one prefixed line per line of text;
// CRLF, CR and LF all end a line, as the event-stream format reads them.
func appendLines(b []byte, prefix, text string) []byte {
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			return append(append(append(b, prefix...), text...), '\n')
		}
		b = append(append(append(b, prefix...), text[:i]...), '\n')
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

func (es *EventStream) write(b []byte) error {
	es.buf = b
	r := es.rp.live()
	if r.req.isHead() {
		return context.Cause(es.ctx) // net/http would discard the event without an error
	}
	r.armWrite() // each event within the reply time-out; the wait between events is not bounded
	tw := &r.tw
	if _, err := tw.Write(b); err != nil {
		return err
	}
	return tw.FlushError()
}
