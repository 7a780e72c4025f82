package app_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/scope"
)

type database struct{ dsn string }

func noop(*app.Server) error { return nil }

// inAPI registers p inside a child context of s named "api".
func inAPI(s *app.Server, p *app.Plugin) {
	s.Register(func(api *app.Server) error { return api.Register(p) }, app.Name("api"))
}

func TestPluginContract(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *app.Server)
		is    error // nil: Ready succeeds
		msg   string
	}{
		{
			name: "dependency in the same context, registered before",
			build: func(s *app.Server) {
				s.Register(app.Wrap(noop, app.Name("db")))
				s.Register(app.Describe(noop, app.Name("users"), app.DependsOn("db")))
			},
		},
		{
			name: "dependency in an ancestor",
			build: func(s *app.Server) {
				s.Register(app.Describe(noop, app.Name("db")))
				inAPI(s, app.Wrap(noop, app.Name("users"), app.DependsOn("db")))
			},
		},
		{
			name: "missing dependency",
			build: func(s *app.Server) {
				inAPI(s, app.Describe(noop, app.Name("users"), app.DependsOn("db")))
			},
			is:  app.ErrMissingDependency,
			msg: `plugin users (root > api) needs plugin "db", which is not registered before it in root > api or an ancestor`,
		},
		{
			name: "dependency registered after the plugin",
			build: func(s *app.Server) {
				s.Register(app.Describe(noop, app.Name("users"), app.DependsOn("db")))
				s.Register(app.Describe(noop, app.Name("db")))
			},
			is:  app.ErrMissingDependency,
			msg: `plugin users (root) needs plugin "db", which is not registered before it in root or an ancestor`,
		},
		{
			name: "dependency only in a sibling",
			build: func(s *app.Server) {
				s.Register(func(other *app.Server) error {
					return other.Register(app.Wrap(noop, app.Name("db")))
				}, app.Name("other"))
				inAPI(s, app.Wrap(noop, app.Name("users"), app.DependsOn("db")))
			},
			is:  app.ErrMissingDependency,
			msg: `plugin users (root > api) needs plugin "db", which is only registered in root > other, not in root > api or an ancestor`,
		},
		{
			name: "decorator visible",
			build: func(s *app.Server) {
				s.DecorateRequest("user", "")
				inAPI(s, app.Wrap(noop, app.Name("audit"), app.NeedsDecorators("user")))
			},
		},
		{
			name: "missing decorator",
			build: func(s *app.Server) {
				s.Register(app.Wrap(noop, app.Name("audit"), app.NeedsDecorators("user")))
			},
			is:  app.ErrMissingDecorator,
			msg: `plugin audit (root) needs request decorator "user", which no context provides before it: register what provides it before this plugin, in root or an ancestor`,
		},
		{
			name: "decorator only in a sibling",
			build: func(s *app.Server) {
				s.Register(func(auth *app.Server) error { return auth.DecorateRequest("user", "") }, app.Name("auth"))
				inAPI(s, app.Wrap(noop, app.Name("audit"), app.NeedsDecorators("user")))
			},
			is:  scope.ErrNotVisible,
			msg: `plugin audit (root > api) needs request decorator "user", which is only provided in sibling context root > auth`,
		},
		{
			name: "service visible",
			build: func(s *app.Server) {
				s.Decorate(&database{dsn: "x"})
				s.Register(app.Describe(noop, app.Name("repo"), app.NeedsService[*database]()))
			},
		},
		{
			name: "missing service",
			build: func(s *app.Server) {
				s.Register(app.Describe(noop, app.Name("repo"), app.NeedsService[*database]()))
			},
			is:  app.ErrMissingDecorator,
			msg: `plugin repo (root) needs service *app_test.database, which no context provides before it: register what provides it before this plugin, in root or an ancestor`,
		},
		{
			name: "supported version",
			build: func(s *app.Server) {
				s.Register(app.Wrap(noop, app.Name("modern"), app.Supports(">=0.4.0 <1")))
			},
		},
		{
			name: "version mismatch",
			build: func(s *app.Server) {
				inAPI(s, app.Wrap(noop, app.Name("old"), app.Supports("^0.1.0")))
			},
			is:  app.ErrVersionMismatch,
			msg: `plugin old (root > api) supports Burrow ^0.1.0, this is ` + app.Version,
		},
		{
			name: "same wrapped plugin twice in one context",
			build: func(s *app.Server) {
				s.Register(app.Wrap(noop, app.Name("metrics")))
				s.Register(app.Wrap(noop, app.Name("metrics")))
			},
			is:  app.ErrDuplicatePlugin,
			msg: `plugin metrics (root) is already registered in root`,
		},
		{
			name: "same wrapped plugin in two sibling contexts",
			build: func(s *app.Server) {
				s.Register(func(a *app.Server) error { return a.Register(app.Wrap(noop, app.Name("metrics"))) })
				s.Register(func(b *app.Server) error { return b.Register(app.Wrap(noop, app.Name("metrics"))) })
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			tt.build(s)
			err := s.Ready()
			if tt.is == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.is)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}

func TestInvalidVersionRangeFailsRegister(t *testing.T) {
	s := app.New()
	err := s.Register(app.Wrap(noop, app.Name("odd"), app.Supports(">=banana")))
	require.ErrorIs(t, err, app.ErrInvalidPlugin)
	assert.Equal(t, `plugin odd (root) is invalid: invalid version range ">=banana": bad version "banana"`, err.Error())
	var pe *app.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "odd", pe.Plugin)
	assert.ErrorIs(t, s.Ready(), app.ErrInvalidPlugin)
}

func TestCheckRefusesAPluginAtRegister(t *testing.T) {
	s := app.New()
	var registerErr error
	s.Register(func(api *app.Server) error {
		registerErr = api.Register(app.Wrap(noop, app.Name("cache"),
			app.Check(func() error { return errors.New("cache: size must be positive") })))
		return nil // even ignored, the refusal stops Ready
	}, app.Name("api"))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidPlugin)
	assert.Equal(t, registerErr, err)
	assert.Equal(t, "plugin cache (root > api) is invalid: cache: size must be positive", err.Error())
}
