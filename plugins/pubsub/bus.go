package pubsub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// ErrSlowSubscriber is the Err of a subscription the bus dropped: its
// buffer was full when a message came, so it would have missed one.
var ErrSlowSubscriber = errors.New("subscriber dropped: its buffer was full when a message came")

// Message is one message a subscription receives.
type Message struct {
	Topic string
	Data  []byte // shared with the other subscribers: read it, do not change it
}

// Bus is a publish/subscribe service: a message published on a topic
// reaches the topic's subscribers on this instance at once, and, through
// the bus's Transport, those of every other instance. Delivery is at
// most once and, per publisher, in order; see the package doc.
type Bus struct {
	cfg config
	id  []byte // this instance's mark on what it sends, to skip its own echo

	mu     sync.RWMutex
	topics map[string]map[*Subscription]struct{}

	out     chan []byte // envelopes for the transport; nil without one
	stop    context.CancelFunc
	running sync.WaitGroup
	started bool

	down    atomic.Bool  // cross-instance delivery failed and has not recovered
	retryAt atomic.Int64 // while down, when the sender tries the transport again (Unix ns)

	published, delivered, dropped, lost atomic.Uint64
}

// Stats counts what a bus did since it was made.
type Stats struct {
	Published uint64 // messages published on this instance
	Delivered uint64 // messages handed to subscribers of this instance
	Dropped   uint64 // subscribers dropped for a full buffer (ErrSlowSubscriber)
	Lost      uint64 // messages that could not be sent to the other instances
}

// New returns a bus; see Option for its settings. Without a Transport it
// delivers on this instance only. Start (or Plugin) starts its exchange
// with the other instances.
func New(opts ...Option) *Bus {
	cfg := newConfig(opts)
	b := &Bus{cfg: cfg, topics: map[string]map[*Subscription]struct{}{}}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	b.id = append([]byte(hex.EncodeToString(id)), '\n')
	if cfg.transport != nil {
		b.out = make(chan []byte, cfg.queue)
	}
	return b
}

// Subscription is a subscriber's end of a topic: C gives the messages,
// in order, and is closed when the subscription ends — by Close, or by
// the bus dropping a subscriber that fell Buffer messages behind (Err
// then says so).
type Subscription struct {
	C <-chan Message

	c     chan Message
	b     *Bus
	topic string
	err   atomic.Pointer[error]
}

// Subscribe subscribes to topic, with a buffer of Buffer messages.
func (b *Bus) Subscribe(topic string) *Subscription {
	c := make(chan Message, b.cfg.buffer)
	s := &Subscription{C: c, c: c, b: b, topic: topic}
	b.mu.Lock()
	subs := b.topics[topic]
	if subs == nil {
		subs = map[*Subscription]struct{}{}
		b.topics[topic] = subs
	}
	subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Close ends the subscription: C is closed (after the messages already
// in it), and no message is added.
func (s *Subscription) Close() { s.b.remove(s, nil) }

// Err is ErrSlowSubscriber once the bus dropped the subscription, nil
// otherwise.
func (s *Subscription) Err() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// remove ends s with err.
func (b *Bus) remove(s *Subscription, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	subs := b.topics[s.topic]
	if _, ok := subs[s]; !ok {
		return
	}
	delete(subs, s)
	if len(subs) == 0 {
		delete(b.topics, s.topic)
	}
	if err != nil {
		s.err.Store(&err)
		b.dropped.Add(1)
	}
	close(s.c)
}

// Publish delivers data to topic's subscribers on this instance, then
// queues it for the other instances; it never waits for them, and never
// fails: a message the queue has no room for, or the transport could not
// send, is lost to them (Stats.Lost), and a transport that fails is
// logged once, while local delivery goes on. data is shared with the
// subscribers: do not change it after.
func (b *Bus) Publish(topic string, data []byte) {
	b.published.Add(1)
	b.deliver(topic, data)
	if b.out == nil {
		return
	}
	env := make([]byte, 0, len(b.id)+len(topic)+1+len(data))
	env = append(append(append(append(env, b.id...), topic...), '\n'), data...)
	select {
	case b.out <- env:
	default:
		b.lost.Add(1)
	}
}

// deliver hands data to topic's subscribers here; one whose buffer is
// full is dropped, so it never sees a gap it cannot tell.
func (b *Bus) deliver(topic string, data []byte) {
	var slow []*Subscription
	b.mu.RLock()
	for s := range b.topics[topic] {
		select {
		case s.c <- Message{Topic: topic, Data: data}:
			b.delivered.Add(1)
		default:
			slow = append(slow, s)
		}
	}
	b.mu.RUnlock()
	for _, s := range slow {
		b.remove(s, ErrSlowSubscriber)
	}
}

// Stats reports what the bus did so far.
func (b *Bus) Stats() Stats {
	return Stats{Published: b.published.Load(), Delivered: b.delivered.Load(), Dropped: b.dropped.Load(), Lost: b.lost.Load()}
}

// Start starts the exchange with the other instances: a goroutine that
// sends what Publish queued, and one that receives what they publish.
// A bus without a transport has nothing to start. Stop ends them.
func (b *Bus) Start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.out == nil || b.started {
		return
	}
	b.started = true
	ctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	b.running.Add(2)
	go b.send(ctx)
	go b.receive(ctx)
}

// Stop ends the exchange Start began and waits for it; the messages
// still queued for the other instances are dropped. Local delivery goes
// on.
func (b *Bus) Stop() {
	b.mu.Lock()
	stop := b.stop
	b.stop = nil
	b.mu.Unlock()
	if stop != nil {
		stop()
		b.running.Wait()
	}
}

// send sends the queued envelopes, in order.
func (b *Bus) send(ctx context.Context) {
	defer b.running.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case env := <-b.out:
			if b.down.Load() && time.Now().UnixNano() < b.retryAt.Load() {
				// While the transport is down, trying each message would
				// only pile up failed dials (and the client's own logs):
				// one is tried a pause after the last failure.
				b.lost.Add(1)
				continue
			}
			sctx, cancel := context.WithTimeout(ctx, b.cfg.sendTimeout)
			err := b.cfg.transport.Publish(sctx, env)
			cancel()
			if err != nil {
				b.lost.Add(1)
				b.failed(err)
				continue
			}
			b.recovered()
		}
	}
}

// receive runs the transport's Receive, again after each failure, with a
// growing pause, until ctx ends.
func (b *Bus) receive(ctx context.Context) {
	defer b.running.Done()
	pause := minPause
	for {
		err := b.cfg.transport.Receive(ctx, b.recovered, b.fromOthers)
		if ctx.Err() != nil {
			return
		}
		b.failed(err)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		pause = min(2*pause, maxPause)
	}
}

// Pauses between attempts to receive from the other instances, and
// between the sender's attempts while the transport is down.
const (
	minPause   = 50 * time.Millisecond
	maxPause   = 5 * time.Second
	retryPause = time.Second
)

// fromOthers delivers an envelope the transport received, unless this
// instance sent it.
func (b *Bus) fromOthers(env []byte) {
	if len(env) < len(b.id) || string(env[:len(b.id)]) == string(b.id) {
		return
	}
	rest := env[len(b.id):]
	for i, c := range rest {
		if c == '\n' {
			b.deliver(string(rest[:i]), rest[i+1:])
			return
		}
	}
}

// failed notes that cross-instance delivery failed: logged once, when it
// stops, not for every message.
func (b *Bus) failed(err error) {
	b.retryAt.Store(time.Now().Add(retryPause).UnixNano())
	if b.down.CompareAndSwap(false, true) {
		b.log().Warn("publish/subscribe: cross-instance delivery stopped; local delivery goes on", zap.Error(err))
	}
}

// recovered notes that the transport works again: it received, or it
// sent.
func (b *Bus) recovered() {
	if b.down.CompareAndSwap(true, false) {
		b.log().Info("publish/subscribe: cross-instance delivery resumed")
	}
}

// log is where the bus logs: its Logger, or nowhere.
func (b *Bus) log() *zap.Logger {
	if b.cfg.log == nil {
		return zap.NewNop()
	}
	return b.cfg.log
}
