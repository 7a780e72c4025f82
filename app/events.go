package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// DefaultHeartbeat is how often a typed event stream ([Events]) writes a
// comment when it has sent nothing else: often enough for proxies that
// close a connection idle for 30 or 60 seconds.
const DefaultHeartbeat = 15 * time.Second

// Event is one event of a typed event stream: Data is sent as JSON (one
// "data:" line), ID as the event's id, which the client sends back as
// Last-Event-ID when it reconnects, and Name as its type ("" for the
// client's default, "message").
type Event[T any] struct {
	ID   string
	Name string
	Data T
}

// EventStream is the stream of an [Events] route: Send writes one event
// and flushes it; between events, a heartbeat comment keeps it open. It
// may be used from any goroutine until the handler returns.
type EventStream[T any] struct {
	es     *httpx.EventStream
	lastID string

	mu    sync.Mutex // one write at a time: the handler's, the heartbeat's
	every time.Duration
	beat  *time.Timer // nil when off
	ended bool        // the handler returned: the stream is the next request's
	buf   bytes.Buffer
	enc   *json.Encoder
}

// Events registers h as the GET route at path that answers with a typed
// stream of server-sent events, each a T. In is planned and filled as a
// typed route's ([Get]): hooks (authentication, rate limits) and In's
// rules run before h, since the stream begins — 200, text/event-stream —
// when h is called; an error h returns then is logged, not answered. h's
// context ends when the client goes away, when the server begins to
// close (cause httpx.ErrServerClosing, so h may send a last event) or at
// the request time-out, as a stream's does (see httpx.Reply.SSE); Close
// does not wait its deadline for it. The stream writes a heartbeat
// comment (": ping") after DefaultHeartbeat without an event
// (SetHeartbeat changes it), and the client's Last-Event-ID is
// LastEventID. T is checked at Ready: one encoding/json cannot encode
// fails it.
func Events[In, T any](s *Server, path string, h func(context.Context, In, *EventStream[T]) error, opts ...RouteOption) error {
	if h == nil {
		return s.Route(http.MethodGet, path, nil, opts...) // the nil-handler error
	}
	opts = append([]RouteOption{RespondsAs(http.StatusOK, "text/event-stream", nil)}, opts...)
	return s.Route(http.MethodGet, path, &eventsRoute[In, T]{fn: h}, opts...)
}

// eventsRoute is the handler of a route registered with Events.
type eventsRoute[In, T any] struct {
	fn func(context.Context, In, *EventStream[T]) error
}

func (r *eventsRoute[In, T]) target() any { return r.fn }

func (r *eventsRoute[In, T]) direct(c *scope.Context, opt planOptions) (invoker, error) {
	get, err := planRouteInput[In](r.fn, c, opt)
	if err != nil {
		return nil, err
	}
	if err := CheckEncodable[T](); err != nil {
		return nil, err
	}
	fn := r.fn
	return func(x *exchange, herr error) (any, error) {
		in := get(x, herr)
		es, err := x.Reply().SSE()
		if err != nil {
			return nil, err
		}
		st := &EventStream[T]{es: es, lastID: x.Request().Header("Last-Event-ID")}
		st.SetHeartbeat(DefaultHeartbeat)
		defer st.end()
		return nil, fn(es.Context(), in, st)
	}, nil
}

// LastEventID is the ID of the last event the client received, which it
// sends when it reconnects (the Last-Event-ID header); "" on a first
// connection. The handler resumes after it.
func (st *EventStream[T]) LastEventID() string { return st.lastID }

// Context is the stream's context; see httpx.EventStream.Context.
func (st *EventStream[T]) Context() context.Context { return st.es.Context() }

// SetHeartbeat sets how long the stream may go without a write before
// it writes a heartbeat comment; 0 turns heartbeats off.
func (st *EventStream[T]) SetHeartbeat(every time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.every = every
	switch {
	case st.ended:
	case every <= 0 && st.beat != nil:
		st.beat.Stop()
		st.beat = nil
	case every > 0 && st.beat == nil:
		st.beat = time.AfterFunc(every, st.heartbeat)
	case every > 0:
		st.beat.Reset(every)
	}
}

// Send writes e, its Data encoded as JSON, and flushes it. It returns
// httpx.ErrEventField for an ID or Name holding a line break, the
// encoding's error, or the connection's.
func (st *EventStream[T]) Send(e Event[T]) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return context.Canceled
	}
	if st.enc == nil {
		st.enc = json.NewEncoder(&st.buf)
		st.enc.SetEscapeHTML(false) // as Send: "<" stays "<"
	}
	st.buf.Reset()
	if err := st.enc.Encode(e.Data); err != nil {
		return err
	}
	data := bytes.TrimSuffix(st.buf.Bytes(), []byte{'\n'})
	err := st.es.Send(httpx.Event{ID: e.ID, Event: e.Name, Data: string(data)})
	st.rearm()
	return err
}

// heartbeat writes the comment when the stream has been quiet.
func (st *EventStream[T]) heartbeat() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended || st.beat == nil || st.es.Context().Err() != nil {
		return
	}
	if st.es.Comment("ping") != nil {
		return // the connection is gone: the handler's next Send says so
	}
	st.rearm()
}

// rearm starts the heartbeat's wait again after a write; st.mu is held.
func (st *EventStream[T]) rearm() {
	if st.beat != nil {
		st.beat.Reset(st.every)
	}
}

// end stops the heartbeat before the handler's reply is released: no
// write may follow the request.
func (st *EventStream[T]) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
	if st.beat != nil {
		st.beat.Stop()
	}
}
