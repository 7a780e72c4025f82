package pubsub

import (
	"time"

	"go.uber.org/zap"
)

// Defaults of a bus's bounds.
const (
	// DefaultBuffer is a subscription's buffer: a subscriber that falls
	// this many messages behind is dropped.
	DefaultBuffer = 64
	// DefaultQueue bounds the messages waiting to be sent to the other
	// instances; beyond it they are lost to them.
	DefaultQueue = 1024
	// DefaultSendTimeout bounds sending one message to the transport.
	DefaultSendTimeout = 5 * time.Second
)

// Option configures a bus.
type Option func(*config)

type config struct {
	transport   Transport
	buffer      int
	queue       int
	sendTimeout time.Duration
	log         *zap.Logger // nil until Logger or Plugin sets it
}

func newConfig(opts []Option) config {
	c := config{buffer: DefaultBuffer, queue: DefaultQueue, sendTimeout: DefaultSendTimeout}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTransport links the bus to the other instances through t.
func WithTransport(t Transport) Option { return func(c *config) { c.transport = t } }

// Buffer sets a subscription's buffer (DefaultBuffer); n below 1 is 1.
func Buffer(n int) Option { return func(c *config) { c.buffer = max(n, 1) } }

// Queue bounds the messages waiting for the transport (DefaultQueue); n
// below 1 is 1.
func Queue(n int) Option { return func(c *config) { c.queue = max(n, 1) } }

// SendTimeout bounds sending one message to the transport
// (DefaultSendTimeout).
func SendTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.sendTimeout = d
		}
	}
}

// Logger is where the bus says that cross-instance delivery stopped and
// resumed; Plugin gives it its context's logger. None by default.
func Logger(l *zap.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}
