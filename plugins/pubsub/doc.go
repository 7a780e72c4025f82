// Package pubsub is a small publish/subscribe bus that event streams and
// WebSocket routes subscribe to, so that an event published on one
// instance of a server reaches the subscribers of every instance.
//
//	bus := pubsub.New(pubsub.WithTransport(redispubsub.New(rdb))) // or pubsub.New(): this instance only
//	s.Register(bus.Plugin())                                       // *pubsub.Bus is a service
//	sub := bus.Subscribe("todos")                                  // in a stream's handler
//	defer sub.Close()
//	bus.Publish("todos", data)                                     // in another handler, on any instance
//
// Publish delivers to the topic's subscribers on this instance at once,
// then queues the message for the other instances, which the bus's
// Transport carries: NewMemory links the buses of one process, and the
// module github.com/burrow-go/burrow/plugins/pubsub/redispubsub carries
// them through Redis.
//
// The delivery guarantee is at most once, in order per publisher: a
// subscriber gets a message once or not at all, and the messages of one
// publisher in the order they were published. Nothing is stored: what is
// published while a subscriber is not subscribed, or while an instance
// is cut off, is not delivered to it.
//
// Every buffer is bounded. A subscriber that falls Buffer messages behind
// is dropped — its channel closed, Err is ErrSlowSubscriber — rather
// than miss a message without knowing, and Stats counts it; a message
// the transport's queue has no room for, or the transport fails to send,
// is lost to the other instances and counted. Publish never waits for
// the transport and never fails: when the transport is down, the bus
// logs one warning, delivers on this instance as before, and logs again
// when the transport is back.
package pubsub
