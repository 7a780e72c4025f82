package redisstore_test

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/idempotency/redisstore"
)

type message struct {
	To string `json:"to" validate:"required"`
}

type sendIn struct {
	app.In
	Body message `body:""`
}

// A handler with no database transaction (it sends a message) keeps its
// Idempotency-Key records in Redis. (It needs a Redis server, so it is
// not run here.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	s := app.New()
	s.Register(idempotency.Plugin(redisstore.New(client),
		// X-User stands for the user your authentication hook found.
		idempotency.Identity(func(req *httpx.Request) (string, error) { return req.Header("X-User"), nil })))
	app.Post(s, "/messages", func(ctx context.Context, in sendIn) (string, error) {
		return "sent to " + in.Body.To, nil // the side effect, once per key
	}, app.Status(202), idempotency.Route())
	log.Fatal(s.Listen("127.0.0.1:8000"))
}
