// Package lease closes a shared resource (a database pool, a client)
// only once the last request that took a lease on it has given it back:
// the data store plugins take one for each request's transaction, so
// that a handler outliving the server's Close still commits or rolls
// back before its pool goes.
package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is Take's error once Close has begun.
var ErrClosed = errors.New("closed")

// Holder counts the leases taken on one resource. Its zero value is not
// ready: use New.
type Holder struct {
	mu      sync.Mutex
	open    int
	closing bool
	ended   chan struct{} // closed when closing and open reaches 0
}

// New returns a Holder with no lease taken.
func New() *Holder { return &Holder{ended: make(chan struct{})} }

// Take takes a lease, or fails with ErrClosed once Close has begun.
func (h *Holder) Take() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return ErrClosed
	}
	h.open++
	return nil
}

// Give gives back a lease Take took.
func (h *Holder) Give() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open--
	if h.closing && h.open == 0 {
		close(h.ended)
	}
}

// Close refuses new leases, waits for the open ones to be given back,
// then calls release (once). If ctx ends first, it returns an error
// saying how many are still open, and release runs when the last is
// given back.
func (h *Holder) Close(ctx context.Context, release func() error) error {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return nil
	}
	h.closing = true
	open := h.open
	if open == 0 {
		close(h.ended)
	}
	h.mu.Unlock()
	select {
	case <-h.ended:
		return release()
	case <-ctx.Done():
		go func() {
			<-h.ended
			_ = release()
		}()
		return fmt.Errorf("transactions still open when the server closed (%d); the pool closes when they end: %w", open, ctx.Err())
	}
}
