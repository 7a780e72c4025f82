package prometheus_test

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/prometheus"
)

// The metrics of a server's requests, scraped from another server (an
// admin listener).
func Example() {
	m := prometheus.New()
	s := app.New()
	_ = s.Register(m.Plugin())
	_ = s.Get("/todos/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	admin := app.New()
	_ = admin.Get("/metrics", m.Handler())
	if err := s.Ready(); err != nil {
		panic(err)
	}
	if err := admin.Ready(); err != nil {
		panic(err)
	}

	for _, target := range []string{"/todos/1", "/todos/2", "/unknown/path"} {
		res, _ := s.Inject(httptest.NewRequest("GET", target, nil))
		res.Body.Close()
	}
	res, _ := admin.Inject(httptest.NewRequest("GET", "/metrics", nil))
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "http_server_requests_total") {
			fmt.Println(sc.Text())
		}
	}
	// Output:
	// http_server_requests_total{context="root",method="GET",route="/todos/{id}",status="200"} 2
	// http_server_requests_total{context="root",method="GET",route="unmatched",status="404"} 1
}
