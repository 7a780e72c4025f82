package redisstore_test

import (
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/ratelimit/redisstore"
)

// Every instance started with the same Redis URL shares the per-IP
// budget; while Redis is away each decides alone and one warning says so.
func Example() {
	logger := zap.NewExample()
	opts, err := redisstore.ClientOptions("redis://127.0.0.1:6379/0")
	if err != nil {
		logger.Fatal("bad redis URL", zap.Error(err))
	}
	client := redis.NewClient(opts)
	defer client.Close()

	s := app.New(app.WithLogger(logger))
	s.Register(ratelimit.Plugin(
		ratelimit.WithStore(redisstore.New(client, redisstore.Logger(logger))),
		ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 60, Window: time.Minute, Key: ratelimit.ByIP()}),
	))
	_ = s.Listen("127.0.0.1:8080")
}
