package redisstore_test

import (
	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/cache"
	"github.com/burrow-go/burrow/plugins/cache/redisstore"
)

// Every instance registering the plugin on the same Redis shares the
// answers one of them stored.
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	s := app.New()
	s.Register(cache.Plugin(redisstore.New(rdb)))
}
