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
	s := app.New(app.WithRequestLogging(false))
	s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{
		Name: "ip", Limit: 2, Window: time.Minute, Key: ratelimit.ByIP(),
	})))
	s.Get("/hello", func() (string, error) { return "hello", nil })

	for range 3 {
		res, err := s.Inject(httptest.NewRequest("GET", "/hello", nil))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Println(res.StatusCode, res.Header.Get("RateLimit-Policy"))
		if res.StatusCode == http.StatusTooManyRequests {
			fmt.Println(string(body))
		}
	}
	// Output:
	// 200 "ip";q=2;w=60
	// 200 "ip";q=2;w=60
	// 429 "ip";q=2;w=60
	// {"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 30 seconds"}
}
