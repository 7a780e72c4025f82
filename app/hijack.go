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
// A connection counts from StateNew, which net/http reports before Serve
// can return, until StateClosed or, once hijacked, until Burrow is done
// with its request (requestEnded). Counting hijacked connections from the
// hijack alone would not do: net/http stops tracking a connection before
// it reports StateHijacked, so Shutdown could return before a hijack
// under way was counted. Only connections change the count, never a
// request that is not hijacked.
//
// The hijack is learnt from ConnState, which hears of every one, through
// whichever writer it went (Burrow's, or net/http's underneath reached
// with Unwrap); the request's end finds its connection in its context
// (connContext). Keying by net.Conn is what httptest.Server does too.
type conns struct {
	mu       sync.Mutex
	open     int                   // counted connections
	hijacked map[net.Conn]struct{} // of those, hijacked ones whose request has not ended
	pending  atomic.Int32          // len(hijacked), which every request's end reads without the lock
	idle     chan struct{}         // closed when open drops to 0; nil while no one waits
}

// connKey is the context key of a request's connection.
type connKey struct{}

// connContext is the servers' http.Server.ConnContext: it puts the
// connection in its requests' contexts, once per connection, for
// requestEnded.
func (*conns) connContext(ctx context.Context, conn net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, conn)
}

// track is the servers' http.Server.ConnState. StateActive and
// StateIdle, which come with every request, take no lock.
func (c *conns) track(conn net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		c.mu.Lock()
		c.open++
		c.mu.Unlock()
	case http.StateHijacked:
		c.mu.Lock()
		if c.hijacked == nil {
			c.hijacked = make(map[net.Conn]struct{})
		}
		c.hijacked[conn] = struct{}{}
		c.pending.Add(1)
		c.mu.Unlock()
	case http.StateClosed:
		c.mu.Lock()
		c.drop()
		c.mu.Unlock()
	}
}

// drop uncounts a connection; c.mu is held.
func (c *conns) drop() {
	c.open--
	if c.open == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// requestEnded ends the count of the request of ctx if its connection
// was hijacked, once its handler, onResponse hooks and access log are
// done. A request of another http.Server (the server used as an
// http.Handler) has no connection of ours in its context and was never
// counted. A request costs one atomic load while no hijacked connection
// awaits its end.
func (c *conns) requestEnded(ctx context.Context) {
	if c.pending.Load() == 0 {
		return
	}
	conn, _ := ctx.Value(connKey{}).(net.Conn)
	if conn == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.hijacked[conn]; ok {
		delete(c.hijacked, conn)
		c.pending.Add(-1)
		c.drop()
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
	if c.open == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle, n := c.idle, len(c.hijacked)
	c.mu.Unlock()
	if n > 0 {
		a.log.Info("waiting for the handlers of hijacked connections", zap.Int("count", n))
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	c.mu.Lock()
	n = len(c.hijacked)
	c.mu.Unlock()
	switch n {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("1 handler of a hijacked connection still running: %w", ctx.Err())
	}
	return fmt.Errorf("%d handlers of hijacked connections still running: %w", n, ctx.Err())
}
