package redisstore_test

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/session"
	"github.com/burrow-go/burrow/plugins/session/redisstore"
)

// Sessions in Redis, shared by every instance of the service. The
// client's short time-outs bound how long a request waits when Redis
// stalls. (No output: it needs a Redis server.)
func Example() {
	rdb := redis.NewClient(&redis.Options{
		Addr:        "127.0.0.1:6379",
		DialTimeout: 500 * time.Millisecond, ReadTimeout: 250 * time.Millisecond, WriteTimeout: 250 * time.Millisecond,
	})
	defer rdb.Close()
	type account struct{ Name string }
	s := app.New()
	s.Register(session.Plugin[account](redisstore.New(rdb), session.Cookie("sid")))
}
