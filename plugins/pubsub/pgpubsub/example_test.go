package pgpubsub_test

import (
	"context"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/pubsub/pgpubsub"
)

// Instances on one database share a bus: what a handler publishes on
// one reaches the subscribers of every one.
func Example() {
	pool, err := pgxpool.New(context.Background(), "postgres://app@127.0.0.1/app")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close() // after the server
	s := app.New()
	bus := pubsub.New(pubsub.WithTransport(pgpubsub.New(pool, pgpubsub.Channel("app_events"))))
	if err := s.Register(bus.Plugin()); err != nil { // listens from Ready, stops at Close
		log.Fatal(err)
	}
}
