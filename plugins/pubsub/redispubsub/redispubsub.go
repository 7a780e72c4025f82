// Package redispubsub is the Redis transport of Burrow's
// publish/subscribe bus (plugins/pubsub): every instance publishes to
// one Redis channel and subscribes to it, so a message published on one
// instance reaches the subscribers of all of them.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	bus := pubsub.New(pubsub.WithTransport(redispubsub.New(rdb)))
//	s.Register(bus.Plugin())
//
// Redis's publish/subscribe is itself at most once: a message published
// while an instance is disconnected is not delivered to it. Each
// instance's messages reach the others in the order it published them,
// as Redis keeps the order of one connection's PUBLISH commands. When
// Redis is unreachable, the bus logs one warning, keeps delivering on
// each instance, and resubscribes with a growing pause until Redis is
// back.
//
// It lives in a module of its own, so that the framework's go.mod keeps
// its dependencies: github.com/redis/go-redis/v9.
package redispubsub

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// DefaultChannel is the Redis channel the instances share.
const DefaultChannel = "burrow:pubsub"

// Transport is the Redis transport; it implements pubsub.Transport.
type Transport struct {
	rdb     redis.UniversalClient
	channel string
}

// Option configures the transport.
type Option func(*Transport)

// Channel sets the Redis channel the instances share (DefaultChannel):
// applications sharing a Redis keep apart by naming their own.
func Channel(name string) Option {
	return func(t *Transport) {
		if name != "" {
			t.channel = name
		}
	}
}

// New returns the transport of rdb, which the caller closes after the
// server.
func New(rdb redis.UniversalClient, opts ...Option) *Transport {
	t := &Transport{rdb: rdb, channel: DefaultChannel}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Publish publishes envelope on the channel.
func (t *Transport) Publish(ctx context.Context, envelope []byte) error {
	return t.rdb.Publish(ctx, t.channel, envelope).Err()
}

// Receive subscribes to the channel and delivers what comes until ctx
// ends or the connection fails.
func (t *Transport) Receive(ctx context.Context, ready func(), deliver func([]byte)) error {
	ps := t.rdb.Subscribe(ctx)
	defer ps.Close()
	// A receive blocked on the connection does not see ctx end: closing
	// the subscription ends it.
	stop := context.AfterFunc(ctx, func() { ps.Close() })
	defer stop()
	if err := ps.Subscribe(ctx, t.channel); err != nil {
		return err
	}
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		return err
	}
	ready()
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		deliver([]byte(msg.Payload))
	}
}
