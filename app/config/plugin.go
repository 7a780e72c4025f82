package config

import "github.com/burrow-go/burrow/app"

// Plugin returns a wrapped plugin that loads a T (with Load and opts)
// when it is registered, and provides it as the service *T to the
// context that registers it and that context's descendants: handlers and
// plugins take the configuration as they take any service. A value that
// is not valid fails Ready with the *Error that lists them all.
func Plugin[T any](opts ...Option) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		cfg := new(T)
		if err := Load(cfg, opts...); err != nil {
			return err
		}
		return s.Decorate(cfg)
	}, app.Name("config"))
}
