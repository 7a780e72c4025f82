package pubsub

import (
	"context"

	"github.com/burrow-go/burrow/app"
)

// PluginName is the name Plugin registers under.
const PluginName = "pubsub"

// Plugin makes b a service of the registering context and its
// descendants (a handler takes *pubsub.Bus), starts its exchange with
// the other instances at Ready and stops it when the server closes,
// after the handlers of streams and WebSockets have returned. Without a
// Logger option, b logs to the context's logger.
func (b *Bus) Plugin() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if b.cfg.log == nil {
			b.cfg.log = s.Log()
		}
		if err := s.Decorate(b); err != nil {
			return err
		}
		if err := s.OnReady(func() error { b.Start(); return nil }); err != nil {
			return err
		}
		return s.OnClose(func(context.Context) error { b.Stop(); return nil })
	}, app.Name(PluginName))
}
