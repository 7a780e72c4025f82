package burrowfx_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"go.uber.org/fx"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/burrowfx"
)

// A Burrow server in an fx application: a plugin from the value group,
// served between Start and Stop.
func Example() {
	addr := make(chan string, 1)
	a := fx.New(
		fx.NopLogger,
		burrowfx.Module,
		fx.Supply(burrowfx.Config{Addr: "127.0.0.1:0"}),
		fx.Provide(burrowfx.AsPlugin(func() burrowfx.Plugin {
			return burrowfx.Plugin{Name: "hello", Plugin: app.Wrap(func(s *app.Server) error {
				return s.Get("/hello", func() (string, error) { return "hello from fx", nil })
			})}
		})),
		fx.Invoke(func(s *app.Server) {
			_ = s.OnListen(func(a net.Addr) error { addr <- a.String(); return nil })
		}),
	)
	if err := a.Start(context.Background()); err != nil {
		panic(err)
	}
	defer a.Stop(context.Background())

	res, err := http.Get("http://" + <-addr + "/hello")
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body))
	// Output:
	// 200 hello from fx
}
