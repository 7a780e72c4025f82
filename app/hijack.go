package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"

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
// can return, until StateClosed or, once hijacked, until its request has
// ended (hijackEnded). Counting hijacked connections from the hijack
// alone would not do: net/http stops tracking a connection before it
// reports StateHijacked, so Shutdown could return before a hijack under
// way was counted. Only connections change the count, never a request
// that is not hijacked.
type conns struct {
	mu       sync.Mutex
	open     int           // counted connections
	hijacked int           // of those, hijacked ones whose request has not ended
	idle     chan struct{} // closed when open drops to 0; nil while no one waits
}

// track is the servers' http.Server.ConnState.
func (c *conns) track(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		c.add(1, 0)
	case http.StateHijacked:
		c.add(0, 1)
	case http.StateClosed:
		c.add(-1, 0)
	}
}

func (c *conns) add(open, hijacked int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open += open
	c.hijacked += hijacked
	if c.open == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// hijackEnded ends the count of a request whose connection was hijacked
// through the writer Burrow gave it, once its handler, onResponse hooks
// and access log are done; ctx is the request's. A request of another
// http.Server (the server used as an http.Handler) was never counted.
func (a *instance) hijackEnded(ctx context.Context) {
	srv, _ := ctx.Value(http.ServerContextKey).(*http.Server)
	a.httpMu.Lock()
	ours := slices.Contains(a.servers, srv)
	a.httpMu.Unlock()
	if ours {
		a.conns.add(-1, -1)
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
	idle, n := c.idle, c.hijacked
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
	n = c.hijacked
	c.mu.Unlock()
	switch n {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("1 handler of a hijacked connection still running: %w", ctx.Err())
	}
	return fmt.Errorf("%d handlers of hijacked connections still running: %w", n, ctx.Err())
}
