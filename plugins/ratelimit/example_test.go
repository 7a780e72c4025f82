package ratelimit_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

func Example() {
	s := app.New(app.WithoutRequestLogging())
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // keeps the output exact; leave Clock out in production
	s.Register(ratelimit.Plugin(
		ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 2, Window: time.Minute, Key: ratelimit.ByIP()}),
		ratelimit.WithStore(ratelimit.NewMemory(ratelimit.Clock(func() time.Time { return frozen }))),
	))
	s.Get("/hello", func() (string, error) { return "hello", nil })

	for range 3 {
		res, err := s.Inject(httptest.NewRequest("GET", "/hello", nil))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Println(res.StatusCode, res.Header.Get("RateLimit-Policy"), res.Header.Get("RateLimit"))
		if res.StatusCode == http.StatusTooManyRequests {
			fmt.Println(string(body))
		}
	}
	// Output:
	// 200 "ip";q=2;w=60 "ip";r=1;t=30
	// 200 "ip";q=2;w=60 "ip";r=0;t=60
	// 429 "ip";q=2;w=60 "ip";r=0;t=60
	// {"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 30 seconds"}
}
