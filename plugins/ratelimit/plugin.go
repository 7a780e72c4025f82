package ratelimit

import (
	"strings"

	"github.com/burrow-go/burrow/app"
)

// Plugin returns the wrapped rate-limit plugin: it applies opts'
// policies to the routes of the context that registers it and of its
// descendants, to its not-found answers and, as a middleware (the
// default placement), to its 405 answers — URL guessing spends the
// budget too. Its name is "ratelimit:" and its policies' names
// ("ratelimit:ip,user"). A ByDecorator policy's decorator is a declared
// need: Ready fails where the decorator is not visible, and, since the
// limiter's hook reads it (app.ReadsDecorators), for a route where no
// hook declared with app.SetsDecorators sets it before the limiter runs
// (app.ErrHookOrder). Invalid options make Register fail (and Ready)
// with a *app.PluginError.
func Plugin(opts ...Option) *app.Plugin {
	l, err := New(opts...)
	name := "ratelimit"
	var needs []string
	if err == nil {
		names := make([]string, len(l.policies))
		for i, p := range l.policies {
			names[i] = p.Name
		}
		name += ":" + strings.Join(names, ",")
		needs = l.decorators
	}
	return app.Wrap(func(s *app.Server) error {
		if l.log == nopLog {
			l.log = s.Log()
		}
		for _, p := range l.policies {
			if err := s.DeclareGuard(app.Guard{Kind: app.GuardRateLimit, Name: p.Name}); err != nil {
				return err
			}
		}
		if err := s.OnRoute(l.readExempt); err != nil {
			return err
		}
		if l.hook {
			if err := s.AddHook(l.kind, l.Hook, app.ReadsDecorators(l.decorators...)); err != nil {
				return err
			}
			if len(l.decorators) > 0 {
				return s.AddHook(app.OnResponse, l.checkKeyed)
			}
			return nil
		}
		return s.Use(l.Middleware)
	}, app.Name(name), app.Supports("0.x"), app.NeedsDecorators(needs...), app.Check(func() error { return err }))
}
