package config_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/config"
)

type greeting struct {
	Word string `flag:"word" default:"hello" validate:"max=8"`
}

func TestMain(m *testing.M) { apptest.Main(m) }

// TestPluginProvidesTheConfiguration: the loaded struct is a service in
// the context that registers the plugin, and in its descendants.
func TestPluginProvidesTheConfiguration(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Register(func(api *app.Server) error {
		api.Register(config.Plugin[greeting](config.Args([]string{"-word", "hi"}), env()))
		return api.Register(func(child *app.Server) error {
			return app.Get(child, "/greet", func(_ context.Context, in struct {
				app.In
				Cfg *greeting
			}) (string, error) {
				return in.Cfg.Word, nil
			})
		})
	}))
	res := apptest.Get(t, s, "/greet")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "hi", res.Body)
}

func TestPluginFailsReadyWithEveryInvalidValue(t *testing.T) {
	t.Parallel()
	s := app.New()
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	s.Register(config.Plugin[greeting](config.Args([]string{"-word", "salutations"}), env()))
	err := s.Ready()
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []config.Invalid{{Name: "-word", Rule: "max", Message: "must NOT have more than 8 characters"}}, ce.Invalid)
	assert.Equal(t, 2, app.ExitCode(err))
}

// TestPrintRoutesNeverShowsASecret: a Secret carried as a route's config
// value is listed by PrintRoutes as "[redacted]".
func TestPrintRoutesNeverShowsASecret(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.OnRoute(func(spec *app.RouteSpec) error {
		_, _ = app.RouteConfig[config.Secret](spec)
		return nil
	})
	require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }, app.WithConfig(config.Secret("route-s3cret"))))
	require.NoError(t, s.Ready())
	printed := s.PrintRoutes(app.IncludeHooks())
	assert.Contains(t, printed, "config.Secret [redacted]")
	assert.NotContains(t, printed, "route-s3cret")
}
