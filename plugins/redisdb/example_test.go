package redisdb_test

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/redisdb"
)

type hitsIn struct {
	app.In
	Redis *redis.Client
}

// A client traced and measured through the global OpenTelemetry
// providers, checked for readiness, and closed after the drain. (It
// needs a Redis server, so it is not run here.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	checks := health.New()
	s := app.New()
	s.Register(redisdb.Plugin(client, redisdb.Check(checks, "redis"),
		redisdb.Tracing(otel.GetTracerProvider()), redisdb.Metrics(otel.GetMeterProvider(), "cache")))
	s.Register(checks.Routes())
	app.Post(s, "/hits", func(ctx context.Context, in hitsIn) (int64, error) {
		return in.Redis.Incr(ctx, "hits").Result()
	})
	log.Fatal(s.Listen("127.0.0.1:8000"))
}
