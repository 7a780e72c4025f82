package websocket

import (
	"errors"
	"fmt"
	"time"

	"github.com/burrow-go/burrow/app"
)

// Defaults of a route's limits, each the production-safe choice.
const (
	// DefaultReadLimit bounds an inbound message: a larger one closes
	// the connection with 1009 (message too big).
	DefaultReadLimit = 4 << 10
	// DefaultReadTimeout bounds reading one message once its first
	// frame has come: a peer trickling a message is cut.
	DefaultReadTimeout = 10 * time.Second
	// DefaultWriteTimeout bounds writing one message: a peer that stops
	// reading is cut.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultPingInterval is how often the server pings a connection;
	// DefaultPongTimeout how long it waits for the pong before it drops
	// the peer as dead.
	DefaultPingInterval = 30 * time.Second
	DefaultPongTimeout  = 15 * time.Second
	// DefaultSendQueue bounds the messages Send has queued and the
	// connection has not yet written: one more cuts the connection.
	DefaultSendQueue = 32
)

// Option configures a WebSocket route.
type Option func(*config)

type config struct {
	readLimit    int64
	readTimeout  time.Duration
	writeTimeout time.Duration
	pingEvery    time.Duration
	pongTimeout  time.Duration
	sendQueue    int
	rate         float64 // messages a second; 0 for no limit
	burst        int
	observer     Observer
	routeOpts    []app.RouteOption
	err          error
}

func newConfig(opts []Option) (*config, error) {
	c := &config{
		readLimit:    DefaultReadLimit,
		readTimeout:  DefaultReadTimeout,
		writeTimeout: DefaultWriteTimeout,
		pingEvery:    DefaultPingInterval,
		pongTimeout:  DefaultPongTimeout,
		sendQueue:    DefaultSendQueue,
	}
	for _, o := range opts {
		o(c)
	}
	return c, c.err
}

// ErrInvalidOption is wrapped by the error of an option given a value
// that cannot apply.
var ErrInvalidOption = errors.New("invalid WebSocket option")

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// ReadLimit bounds an inbound message to n bytes (DefaultReadLimit): a
// larger one closes the connection with 1009, message too big.
func ReadLimit(n int64) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail("ReadLimit(%d): a limit is positive", n)
		}
		c.readLimit = n
	}
}

// ReadTimeout bounds reading one message once its first frame has come
// (DefaultReadTimeout). The wait for a message is not bounded: keep-alive
// pings find a dead peer.
func ReadTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("ReadTimeout(%v): a time-out is positive", d)
		}
		c.readTimeout = d
	}
}

// WriteTimeout bounds writing one message (DefaultWriteTimeout): a peer
// that stops reading is cut when it passes.
func WriteTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("WriteTimeout(%v): a time-out is positive", d)
		}
		c.writeTimeout = d
	}
}

// KeepAlive pings the peer every interval and drops it, as dead, when its
// pong does not come within timeout (DefaultPingInterval,
// DefaultPongTimeout). An interval of 0 turns pings off.
func KeepAlive(interval, timeout time.Duration) Option {
	return func(c *config) {
		if interval < 0 || (interval > 0 && timeout <= 0) {
			c.fail("KeepAlive(%v, %v): the interval is 0 (off) or positive, the time-out positive", interval, timeout)
		}
		c.pingEvery, c.pongTimeout = interval, timeout
	}
}

// SendQueue bounds the messages a connection holds that Send queued and
// it has not yet written (DefaultSendQueue). One more cuts the
// connection: a peer that reads too slowly is dropped, not buffered for.
func SendQueue(n int) Option {
	return func(c *config) {
		if n <= 0 {
			c.fail("SendQueue(%d): a queue holds at least one message", n)
		}
		c.sendQueue = n
	}
}

// MessageRate limits the messages a connection may send: perSecond on
// average, in bursts of up to burst. A message beyond it closes the
// connection with 1008, policy violation. There is no limit by default.
func MessageRate(perSecond float64, burst int) Option {
	return func(c *config) {
		if perSecond <= 0 || burst < 1 {
			c.fail("MessageRate(%v, %d): the rate is positive, the burst at least 1", perSecond, burst)
		}
		c.rate, c.burst = perSecond, burst
	}
}

// Observe reports the route's connections and messages to o (the
// Prometheus plugin's WebSockets, say).
func Observe(o Observer) Option { return func(c *config) { c.observer = o } }

// RouteOptions applies route options to the route: its hooks, its
// description, a plugin's config (app.WithConfig).
func RouteOptions(opts ...app.RouteOption) Option {
	return func(c *config) { c.routeOpts = append(c.routeOpts, opts...) }
}

// Observer hears of a route's connections and messages. Both methods
// run on the connection's goroutines and delay them: do no I/O there.
type Observer interface {
	// Connections adds delta, 1 at an upgrade and -1 when the
	// connection ends, to the connections open on route of context.
	Connections(route, context string, delta int)
	// Message counts one message of route of context: direction is
	// "in" for one received, "out" for one sent.
	Message(route, context, direction string)
}
