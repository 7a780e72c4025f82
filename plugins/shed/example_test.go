package shed_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"sync"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/shed"
)

// A context is a bulkhead: with its one slot taken, /reports sheds and
// /healthz, in another context, still answers.
func Example() {
	sh := shed.New()
	s := app.New(app.WithoutRequestLogging())
	entered, release := make(chan struct{}), make(chan struct{})
	s.Register(func(s *app.Server) error {
		s.Register(sh.Bulkhead(1))
		return s.Get("/reports", func() (string, error) {
			entered <- struct{}{}
			<-release
			return "report", nil
		})
	})
	s.Get("/healthz", func() (string, error) { return "ok", nil })

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if res, err := s.Inject(httptest.NewRequest("GET", "/reports", nil)); err == nil {
			res.Body.Close()
		}
	}()
	<-entered
	for _, path := range []string{"/reports", "/healthz"} {
		res, err := s.Inject(httptest.NewRequest("GET", path, nil))
		if err != nil {
			fmt.Println(err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Println(path, res.StatusCode, res.Header.Get("Retry-After"), string(body))
	}
	close(release)
	wg.Wait()
	// Output:
	// /reports 503 10 {"statusCode":503,"error":"Service Unavailable","message":"Service under pressure"}
	// /healthz 200  ok
}
