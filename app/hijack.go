package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// conns counts the connections of the servers Burrow runs, so that Close
// can wait for the handlers of hijacked ones (WebSockets): net/http's
// Shutdown neither closes nor waits for those, and without the wait the
// OnClose hooks (closing a database) would run while such a handler still
// uses what they close, and its request's onResponse hooks and access log
// would come after Close returned.
//
// A connection counts from ConnContext, which net/http calls before Serve
// can return, until StateClosed or, once hijacked, until Burrow is done
// with its request (requestEnded). Counting hijacked connections from the
// hijack alone would not do: net/http stops tracking a connection before
// it reports StateHijacked, so Shutdown could return before a hijack
// under way was counted.
//
// The hijack is learnt from ConnState, which hears of every one, through
// whichever writer it went (Burrow's, or net/http's underneath reached
// with Unwrap), and marked on the connection's entry; the request's end
// finds that entry in its context, the entry being the context ConnContext
// returns. Keying by net.Conn is what httptest.Server does too.
type conns struct {
	mu      sync.Mutex
	open    map[net.Conn]*connEntry // counted connections
	pending atomic.Int32            // of those, hijacked ones whose request has not ended
	idle    chan struct{}           // closed when open empties; nil while no one waits
}

// connEntry is a counted connection, and the context of its requests:
// one allocation a connection (48 bytes), which carries the hijack as a
// flag its requests read without the lock. It keeps the net.Conn only
// while it counts, so a request context kept longer (by a background
// job) does not keep a closed connection.
type connEntry struct {
	context.Context
	conn     net.Conn    // the open map's key; nil once uncounted; guarded by conns.mu
	hijacked atomic.Bool // set at the hijack, before Hijack returns
}

// connKey is the context key of a request's connEntry.
type connKey struct{}

func (e *connEntry) Value(key any) any {
	if key == (connKey{}) {
		return e
	}
	return e.Context.Value(key)
}

// connContext is the servers' http.Server.ConnContext: it counts conn,
// and makes its entry the context of its requests, for requestEnded.
func (c *conns) connContext(ctx context.Context, conn net.Conn) context.Context {
	e := &connEntry{Context: ctx, conn: conn}
	c.mu.Lock()
	if c.open == nil {
		c.open = make(map[net.Conn]*connEntry)
	}
	c.open[conn] = e
	c.mu.Unlock()
	return e
}

// track is the servers' http.Server.ConnState. StateNew (counted by
// connContext already), StateActive and StateIdle, which come with every
// request, take no lock.
func (c *conns) track(conn net.Conn, st http.ConnState) {
	switch st {
	case http.StateHijacked:
		c.mu.Lock()
		if e := c.open[conn]; e != nil {
			e.hijacked.Store(true)
			c.pending.Add(1)
		}
		c.mu.Unlock()
	case http.StateClosed:
		c.mu.Lock()
		if e := c.open[conn]; e != nil {
			c.drop(e)
		}
		c.mu.Unlock()
	}
}

// drop uncounts e's connection; c.mu is held.
func (c *conns) drop(e *connEntry) {
	delete(c.open, e.conn)
	e.conn = nil
	if len(c.open) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// requestEnded ends the count of the request of ctx if its connection
// was hijacked, once its handler, onResponse hooks and access log are
// done. A request of another http.Server (the server used as an
// http.Handler), or one Inject serves, has no entry of ours in its
// context and was never counted. A request costs one atomic load while
// no hijacked connection awaits its end, and otherwise a context lookup
// and a second atomic load: only a hijacked connection's own request
// takes the lock.
func (c *conns) requestEnded(ctx context.Context) {
	if c.pending.Load() == 0 {
		return
	}
	e, _ := ctx.Value(connKey{}).(*connEntry)
	if e == nil || !e.hijacked.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.conn != nil {
		c.pending.Add(-1)
		c.drop(e)
	}
}

// waitConns waits, once the servers are shut down, for their connections
// still counted: those closing, and the hijacked ones until their
// requests end. If ctx ends first, it returns an error saying how many
// handlers of hijacked connections still run; the rest are requests
// whose drain ran out of time, which Shutdown's error reports.
func (a *instance) waitConns(ctx context.Context) error {
	c := &a.conns
	c.mu.Lock()
	if len(c.open) == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle, n := c.idle, int(c.pending.Load())
	c.mu.Unlock()
	if n > 0 {
		a.log.Info("waiting for the handlers of hijacked connections", zap.Int("count", n))
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	switch n = int(c.pending.Load()); n {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("1 handler of a hijacked connection still running: %w", ctx.Err())
	}
	return fmt.Errorf("%d handlers of hijacked connections still running: %w", n, ctx.Err())
}
