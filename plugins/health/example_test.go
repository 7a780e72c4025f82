package health_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/health"
)

func Example() {
	checks := health.New()
	s := app.New(app.WithoutRequestLogging())
	defer s.Close(context.Background())
	s.Register(func(s *app.Server) error { // the plugin that provides the database
		return s.Register(checks.Check("db", func(ctx context.Context) error { return errors.New("db is down") }))
	})
	s.Register(checks.Routes())
	if err := s.Ready(); err != nil {
		fmt.Println(err)
		return
	}
	if err := checks.Wait(context.Background()); err != nil { // the first run of every check
		fmt.Println(err)
		return
	}
	res, _ := s.Inject(httptest.NewRequest("GET", "/readyz", nil))
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body))
	// Output: 503 {"status":"failing","checks":{"db":"db is down"}}
}
