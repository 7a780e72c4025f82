//line /work/wt/caching/docs/fx.md:9
package main

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/burrowfx"
)

type Store struct{ greeting string }

func NewStore() *Store { return &Store{greeting: "hello"} }

func main() {
	fx.New(
		burrowfx.Module,
		burrowfx.EventLogger, // fx's own events on Burrow's logger
		fx.Supply(burrowfx.Config{Addr: ":8080"}),
		fx.Provide(
			zap.NewExample, // Burrow logs with the graph's *zap.Logger
			NewStore,
			burrowfx.AsService(func(s *Store) burrowfx.Service { return burrowfx.Service{Value: s} }),
			burrowfx.AsPlugin(func() burrowfx.Plugin {
				return burrowfx.Plugin{Name: "greeting", Plugin: app.Wrap(func(s *app.Server) error {
					return s.Get("/hello", func(st *Store) (string, error) { return st.greeting, nil })
				})}
			}),
		),
	).Run()
}
