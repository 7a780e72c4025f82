package pubsub

import (
	"context"
	"sync"
)

// Transport carries messages between instances: each instance's bus
// publishes through it, and receives through it what every instance
// published (its own included, which the bus skips). A message is an
// opaque envelope, topic included. The Redis transport is in the module
// github.com/burrow-go/burrow/plugins/pubsub/redispubsub; Memory links
// buses of one process.
type Transport interface {
	// Publish sends envelope to every instance's Receive.
	Publish(ctx context.Context, envelope []byte) error
	// Receive calls ready once it receives, then deliver for each
	// envelope any instance published, in the order each instance
	// published them, until ctx ends (it then returns nil or ctx's
	// error) or the connection fails (it returns why; the bus calls it
	// again after a pause). deliver must not be called after Receive
	// returns.
	Receive(ctx context.Context, ready func(), deliver func(envelope []byte)) error
}

// Memory is a Transport between the buses of one process — instances
// in a test, or modules of one binary that keep separate buses. Delivery
// is synchronous: Publish returns once every receiving bus has taken the
// envelope.
type Memory struct {
	mu        sync.RWMutex
	receivers map[*func([]byte)]struct{}
}

// NewMemory returns a memory transport with no bus yet.
func NewMemory() *Memory { return &Memory{receivers: map[*func([]byte)]struct{}{}} }

// Publish hands envelope to every bus receiving.
func (m *Memory) Publish(_ context.Context, envelope []byte) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for r := range m.receivers {
		(*r)(envelope)
	}
	return nil
}

// Receive receives until ctx ends.
func (m *Memory) Receive(ctx context.Context, ready func(), deliver func([]byte)) error {
	m.mu.Lock()
	m.receivers[&deliver] = struct{}{}
	m.mu.Unlock()
	ready()
	<-ctx.Done()
	m.mu.Lock()
	delete(m.receivers, &deliver)
	m.mu.Unlock()
	return nil
}
