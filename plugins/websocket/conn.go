package websocket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/burrow-go/burrow/app"
)

// Errors a connection's context ends with (context.Cause), and Receive
// and Send return once it has ended. httpx.ErrServerClosing is the cause
// when the server began to close.
var (
	// ErrClosed is the end of a connection the peer closed or lost.
	ErrClosed = errors.New("WebSocket connection closed")
	// ErrSlowReader: the peer read too slowly, its send queue filled
	// and the connection was cut.
	ErrSlowReader = errors.New("WebSocket peer reads too slowly: its send queue is full")
	// ErrNoPong: the peer did not answer a ping in time and was dropped.
	ErrNoPong = errors.New("WebSocket peer did not answer a ping")
	// ErrTooFast: the peer sent more messages than MessageRate allows.
	ErrTooFast = errors.New("WebSocket peer sent messages too fast")
	// ErrReadTimeout: a message the peer began did not arrive whole
	// within ReadTimeout, and the connection was cut.
	ErrReadTimeout = errors.New("WebSocket peer did not send its message in time")
	// ErrBinary: the peer sent a binary message; messages are JSON text.
	ErrBinary = errors.New("WebSocket peer sent a binary message; messages are JSON text")
)

// Conn is one WebSocket connection of a route: Receive takes the next
// message from the peer, decoded and validated, and Send queues one for
// it. Both may be called from any goroutine until the handler returns.
type Conn[Recv, Send any] struct {
	ws  *websocket.Conn
	cfg *config
	dec *app.Decoder[Recv]
	obs observed

	ctx    context.Context // ends with the connection
	cancel context.CancelCauseFunc

	in       chan inbound[Recv] // the reader's messages; closed when it stops
	readDone chan struct{}

	mu      sync.Mutex
	queue   [][]byte // encoded messages Send queued, the writer's to write
	writing bool     // a writer goroutine runs
	stopped bool     // no more Send: the handler returned, or the connection was cut
	bg      sync.WaitGroup
	ping    *time.Timer // nil when keep-alive is off

	// pinging is the context of the ping under way: when it ends
	// before the pong, the library closes the connection, which the
	// reader then meets, and ErrNoPong is the cause.
	pinging atomic.Pointer[context.Context]
}

// inbound is a message the reader decoded, or why it could not be.
type inbound[T any] struct {
	v   T
	err error
}

// Receive returns the next message the peer sent, decoded and validated
// as a request body is. A message that is not valid JSON of Recv or that
// breaks its rules returns the 400 *httpx.Error a body would get, and
// the connection stays open: the handler may answer it, or return it,
// which closes the connection with 1007 (invalid data) and its message
// as the reason. Once the connection has ended, Receive returns why
// (context.Cause of the handler's context); it returns ctx's cause when
// ctx ends first. A message waits for Receive, and the connection's
// reading waits with it: a handler that only sends need not call
// Receive, but a peer that sends to it then stops being read, its pongs
// too, and keep-alive drops it.
func (c *Conn[Recv, Send]) Receive(ctx context.Context) (Recv, error) {
	select {
	case m, ok := <-c.in:
		if ok {
			return m.v, m.err
		}
	case <-ctx.Done():
		var zero Recv
		return zero, context.Cause(ctx)
	}
	var zero Recv
	return zero, context.Cause(c.ctx)
}

// Send encodes v as JSON and queues it for the peer; it does not wait
// for the write. A peer that reads too slowly, leaving SendQueue messages
// unwritten, is cut: Send returns ErrSlowReader, and the connection's
// context ends. Once the connection has ended, Send returns why.
func (c *Conn[Recv, Send]) Send(v Send) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as a reply: "<" stays "<"
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
	c.mu.Lock()
	switch {
	case c.stopped:
		c.mu.Unlock()
		if err := context.Cause(c.ctx); err != nil {
			return err
		}
		return ErrClosed
	case len(c.queue) >= c.cfg.sendQueue:
		c.mu.Unlock()
		c.cut(ErrSlowReader)
		return ErrSlowReader
	}
	c.queue = append(c.queue, data)
	if !c.writing {
		c.writing = true
		c.bg.Add(1)
		go c.write()
	}
	c.mu.Unlock()
	return nil
}

// Context is the connection's context, the one the handler gets.
func (c *Conn[Recv, Send]) Context() context.Context { return c.ctx }

// write writes the queued messages, in order, and returns once the queue
// is empty: an idle connection holds no writer goroutine.
func (c *Conn[Recv, Send]) write() {
	defer c.bg.Done()
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.writing = false
			c.queue = c.queue[:0:0]
			c.mu.Unlock()
			return
		}
		data := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.mu.Unlock()
		// Not the connection's context: a message queued before the
		// server began to close still goes out, ahead of the close frame.
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.writeTimeout)
		err := c.ws.Write(ctx, websocket.MessageText, data)
		cancel()
		if err != nil {
			c.cut(fmt.Errorf("%w: writing: %w", ErrClosed, err))
			continue // the cut emptied the queue
		}
		c.obs.message("out")
	}
}

// read is the connection's reader goroutine: it reads every frame, so
// pings, pongs and the peer's close are answered whatever the handler
// does, and hands each message, decoded, to Receive.
func (c *Conn[Recv, Send]) read() {
	defer close(c.readDone)
	defer close(c.in)
	rctx, stop := context.WithCancel(context.WithoutCancel(c.ctx))
	defer stop()
	var timedOut atomic.Bool
	timer := time.AfterFunc(time.Hour, func() { timedOut.Store(true); stop() }) // each message's read time-out: it cuts the connection
	timer.Stop()
	defer timer.Stop()
	var lim *limiter
	if c.cfg.rate > 0 {
		lim = newLimiter(c.cfg.rate, c.cfg.burst)
	}
	for {
		typ, r, err := c.ws.Reader(rctx)
		if err != nil {
			c.ended(err)
			return
		}
		timer.Reset(c.cfg.readTimeout)
		buf := readBufs.Get().(*bytes.Buffer)
		buf.Reset()
		_, err = buf.ReadFrom(r)
		timer.Stop()
		if err != nil {
			readBufs.Put(buf)
			if timedOut.Load() {
				err = ErrReadTimeout
			}
			c.ended(err)
			return
		}
		c.obs.message("in")
		var v Recv
		switch {
		case lim != nil && !lim.allow(time.Now()):
			err = ErrTooFast
		case typ != websocket.MessageText:
			err = ErrBinary
		default:
			v, err = c.dec.Decode(buf.Bytes()) // v holds copies: buf is reused
		}
		if buf.Cap() <= maxKeptBuffer {
			readBufs.Put(buf)
		}
		switch err {
		case ErrTooFast:
			c.closeWith(err, websocket.StatusPolicyViolation, "too many messages")
			return
		case ErrBinary:
			c.closeWith(err, websocket.StatusUnsupportedData, "messages are JSON text")
			return
		}
		select {
		case c.in <- inbound[Recv]{v: v, err: err}:
		case <-c.ctx.Done():
			return
		}
	}
}

// readBufs are the buffers messages are read into, shared by the
// connections: an idle one holds none.
var readBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptBuffer is the largest read buffer the pool keeps, so that a few
// large messages (under a raised ReadLimit) do not stay pinned.
const maxKeptBuffer = 64 << 10

// ended ends the connection's context with err, the reader's: the peer
// closed the connection or it failed.
func (c *Conn[Recv, Send]) ended(err error) {
	if context.Cause(c.ctx) != nil {
		return
	}
	if p := c.pinging.Load(); p != nil && (*p).Err() != nil {
		c.cancel(ErrNoPong)
		return
	}
	if errors.Is(err, ErrReadTimeout) {
		c.cancel(err)
		return
	}
	if s := websocket.CloseStatus(err); s != -1 {
		c.cancel(fmt.Errorf("%w by the peer: %d", ErrClosed, s))
		return
	}
	c.cancel(fmt.Errorf("%w: %w", ErrClosed, err))
}

// closeWith ends the connection's context with cause and closes it with
// code and reason.
func (c *Conn[Recv, Send]) closeWith(cause error, code websocket.StatusCode, reason string) {
	// Unless the handler has returned already, the handshake counts in
	// c.bg, which the route waits for before it drops the connection:
	// its close must not cut this one's frame.
	c.mu.Lock()
	track := !c.stopped
	c.stopped = true
	if track {
		c.bg.Add(1)
	}
	c.mu.Unlock()
	if track {
		defer c.bg.Done()
	}
	c.cancel(cause)
	_ = c.ws.Close(code, reason)
}

// cut ends the connection at once, without a close handshake, and drops
// what it had queued: a peer that does not read would not get it.
func (c *Conn[Recv, Send]) cut(cause error) {
	c.stop()
	c.mu.Lock()
	c.queue = nil
	c.mu.Unlock()
	c.cancel(cause)
	_ = c.ws.CloseNow()
}

// stop refuses further Sends.
func (c *Conn[Recv, Send]) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// keepAlive pings the peer and drops it when the pong does not come;
// it runs on the ping timer's goroutine.
func (c *Conn[Recv, Send]) keepAlive() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.bg.Add(1)
	c.mu.Unlock()
	defer c.bg.Done()
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.pongTimeout)
	c.pinging.Store(&ctx)
	err := c.ws.Ping(ctx)
	if ctx.Err() == nil {
		c.pinging.Store(nil) // answered, or failed for another reason
	}
	cancel()
	if err != nil {
		if c.ctx.Err() == nil {
			c.cut(ErrNoPong)
		}
		return
	}
	c.mu.Lock()
	if !c.stopped {
		c.ping.Reset(c.cfg.pingEvery)
	}
	c.mu.Unlock()
}

// limiter is a token bucket: rate tokens a second, up to burst.
type limiter struct {
	rate, burst, tokens float64
	last                time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

func (l *limiter) allow(now time.Time) bool {
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// observed is a route's observer with its labels.
type observed struct {
	o              Observer
	route, context string
}

func (o observed) message(direction string) {
	if o.o != nil {
		o.o.Message(o.route, o.context, direction)
	}
}

func (o observed) connections(delta int) {
	if o.o != nil {
		o.o.Connections(o.route, o.context, delta)
	}
}
