package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/pubsub/pgpubsub"
	"github.com/burrow-go/burrow/plugins/pubsub/redispubsub"
	"github.com/burrow-go/burrow/plugins/websocket"
)

// Live updates: every change to a user's todos, whichever request,
// route or instance made it, is published on the bus once its
// transaction has committed, and reaches the user's WebSocket clients
// (GET /todos/live) and event streams (GET /todos/events).

// Kinds of change, a live message's type.
const (
	changeCreated = "created"
	changeUpdated = "updated"
	changeDeleted = "deleted"
)

// change is one live message: a todo created, updated or deleted, as
// it is now (as it was, for deleted). The WebSocket's pong is one too,
// without a todo.
type change struct {
	Type string `json:"type"`
	Todo *todo  `json:"todo,omitempty"`
}

// changes are what a request changed in its user's todos: a request
// value whose cleanup publishes them once the request's transaction has
// committed. It is built before the transaction (collectChanges), so its
// cleanup runs after the transaction's (last built first), and is told
// the request failed when the commit did.
type changes struct {
	bus  *pubsub.Bus
	user int64
	list []change
}

// changesIn is what a request's changes take.
type changesIn struct {
	app.In
	Bus *pubsub.Bus
}

func newChanges(_ context.Context, in changesIn) (*changes, func(bool) error, error) {
	c := &changes{bus: in.Bus}
	return c, func(failed bool) error {
		if !failed {
			c.publish() // to the live routes, of every instance
		}
		return nil
	}, nil
}

// collectChanges is the todos context's first hook: it builds the
// request's changes before anything begins the transaction (the
// Idempotency-Key's hook does, before the handler), so that they are
// published only after the commit.
func collectChanges(*changes) error { return nil }

// record notes that user's todo td was created, updated or deleted;
// nil records nothing (a store used outside a request).
func (c *changes) record(user int64, kind string, td todo) {
	if c == nil {
		return
	}
	c.user = user
	c.list = append(c.list, change{Type: kind, Todo: &td})
}

// publish sends the changes, committed, as one bus message (an
// import's thousand todos are one message, not a thousand that would
// overflow the subscribers' buffers).
func (c *changes) publish() {
	if c == nil || len(c.list) == 0 {
		return
	}
	if b, err := json.Marshal(c.list); err == nil {
		c.bus.Publish(liveTopic(c.user), b)
	}
}

// newBus returns the bus of the live routes and what to close after
// the servers: with -redis, linked to the other instances through Redis;
// on PostgreSQL without it, through the database's notifications, on
// connections of its own; else this instance's only. The closer is
// nil when there is nothing to close.
func newBus(ctx context.Context, cfg settings, onPostgres bool, rdb *redis.Client) (*pubsub.Bus, io.Closer, error) {
	switch {
	case rdb != nil:
		return pubsub.New(pubsub.WithTransport(redispubsub.New(rdb, redispubsub.Channel("todo:live")))), nil, nil
	case onPostgres:
		pc, err := pgxpool.ParseConfig(string(cfg.DB))
		if err != nil {
			return nil, nil, fmt.Errorf("invalid -db: %w", err)
		}
		pc.MaxConns = 2 // one listens, one notifies
		pool, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return nil, nil, err
		}
		t := pgpubsub.New(pool, pgpubsub.Channel("todo_live"))
		return pubsub.New(pubsub.WithTransport(t)), closer(func() error { pool.Close(); return nil }), nil
	}
	return pubsub.New(), nil, nil
}

// liveTopic is the bus topic of a user's changes.
func liveTopic(user int64) string { return "todos:" + strconv.FormatInt(user, 10) }

// livePlugin provides the bus, which links this instance to the others
// through its transport (newBus), and each request's changes. It is
// wrapped: both are visible beside it, to the database's transaction.
func livePlugin(bus *pubsub.Bus) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Register(bus.Plugin()); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(newChanges))
	}, app.Name("live"))
}

// liveSendQueue bounds the messages a WebSocket client has not read
// yet: an import's todos come at once, one message each.
const liveSendQueue = maxImportRows + 64

// liveRoutes registers GET /todos/live and GET /todos/events in the
// todos context, behind its authentication. A handshake with a bearer
// token is admitted from any origin: no page can send one on its own.
func liveRoutes(s *app.Server) error {
	return errors.Join(
		s.ProvideRequest(app.Provider(newFeed)),
		websocket.Route(s, "/todos/live", live, websocket.SendQueue(liveSendQueue),
			websocket.ExemptOrigin(bearerRequest),
			websocket.RouteOptions(app.Summary("Follow the changes to the caller's todos (a WebSocket)"),
				app.Description(liveDescription),
				app.Responds(http.StatusForbidden, httpx.ErrorBody{}),       // a cookie's handshake from another site
				app.Responds(http.StatusUpgradeRequired, httpx.ErrorBody{}), // not a handshake
			)),
		app.Events(s, "/todos/events", events,
			app.Summary("Follow the changes to the caller's todos (server-sent events)")),
	)
}

// feed is a live route's subscription to its user's changes: a request
// value, so that it is subscribed before the WebSocket's upgrade or the
// stream's first byte — a change made once the client is connected
// reaches it — and closed when the route's handler has returned.
type feed struct{ sub *pubsub.Subscription }

// feedIn is what a feed takes: the user, and the bus.
type feedIn struct {
	app.In
	User userID
	Bus  *pubsub.Bus
}

func newFeed(_ context.Context, in feedIn) (*feed, func(bool) error, error) {
	sub := in.Bus.Subscribe(liveTopic(int64(in.User)))
	return &feed{sub: sub}, func(bool) error { sub.Close(); return nil }, nil
}

// liveDescription is GET /todos/live's, for the OpenAPI document, which
// cannot describe a WebSocket's messages.
const liveDescription = "A WebSocket (the handshake answered 101). The server sends " +
	"`{\"type\":\"created\"|\"updated\"|\"deleted\",\"todo\":{…}}` for each change to the caller's todos, " +
	"and `{\"type\":\"pong\"}` for each `{\"type\":\"ping\"}` the client sends. A message over 4 KiB " +
	"closes the connection with 1009, one of another kind with 1007. GET /todos/events sends the same changes as " +
	"server-sent events."

// liveIn is what the live routes take.
type liveIn struct {
	app.In
	Feed *feed
}

// clientMessage is what a WebSocket client may send: a ping.
type clientMessage struct {
	Type string `json:"type" validate:"required,oneof=ping"`
}

// errMissed ends a follower the bus dropped for falling behind: it
// would miss changes, so it is told to reconnect (and reload) instead.
var errMissed = errors.New("the client fell behind and missed changes")

// follow calls send with each change f receives, on a goroutine of its
// own, until the subscription ends or send fails; it then calls stop
// with why: the send's error, or errMissed when the bus dropped the
// subscription. The function it returns ends the subscription and waits
// for that goroutine: send is not called after.
func (f *feed) follow(send func(change) error, stop context.CancelCauseFunc) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range f.sub.C {
			var list []change
			if json.Unmarshal(m.Data, &list) != nil {
				continue
			}
			for _, ch := range list {
				if err := send(ch); err != nil {
					stop(err)
					for range f.sub.C { // until Close: the bus must not find it full
					}
					return
				}
			}
		}
		if f.sub.Err() != nil {
			stop(errMissed)
		}
	}()
	return func() { f.sub.Close(); <-done }
}

// live is GET /todos/live: the user's changes as JSON text messages,
// and a pong for each ping. A message that is not a known one closes
// the connection with 1007, its reason saying why; one over 4 KiB with
// 1009. Idle connections are pinged, and dropped when they do not
// answer (the route's defaults).
func live(ctx context.Context, in liveIn, c *websocket.Conn[clientMessage, change]) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer in.Feed.follow(c.Send, cancel)()
	for {
		_, err := c.Receive(ctx)
		var he *httpx.Error
		switch {
		case errors.As(err, &he):
			return err // not a message of ours: closed with 1007
		case err != nil:
			return nil // the client left, the server is closing, or it fell behind
		}
		if err := c.Send(change{Type: "pong"}); err != nil {
			return nil
		}
	}
}

// events is GET /todos/events: the user's changes as server-sent
// events, named after their type, the data the WebSocket's message.
func events(ctx context.Context, in liveIn, es *app.EventStream[change]) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer in.Feed.follow(func(ch change) error {
		return es.Send(app.Event[change]{Name: ch.Type, Data: ch})
	}, cancel)()
	<-ctx.Done()
	return nil
}
