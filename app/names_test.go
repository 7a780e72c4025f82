package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// One Name option names a plugin wherever a plugin is made or
// registered; Register takes every PluginOption, and its options change
// that registration only, not the plugin value.
func TestNameServesWrapDescribeAndRegister(t *testing.T) {
	t.Parallel()
	noop := func(*app.Server) error { return nil }
	shared := app.Describe(noop, app.Name("shared"))
	s := app.New()
	require.NoError(t, s.Register(app.Wrap(noop, app.Name("wrapped"))))
	require.NoError(t, s.Register(shared))
	require.NoError(t, s.Register(shared, app.Name("renamed"), app.Prefix("/r")))
	require.NoError(t, s.Register(noop, app.Name("plain")))
	require.NoError(t, s.Ready())
	for _, name := range []string{"wrapped", "shared", "renamed", "plain"} {
		assert.True(t, s.HasPlugin(name), name)
	}
	assert.Equal(t, "shared", shared.Name(), "Register's Name renames that registration only")
}

func TestRegisterChecksDeclarationsGivenToIt(t *testing.T) {
	t.Parallel()
	noop := func(*app.Server) error { return nil }
	shared := app.Describe(noop, app.Name("users"))
	s := app.New()
	require.NoError(t, s.Register(shared))
	require.NoError(t, s.Register(shared, app.Name("users2"), app.DependsOn("db")))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrMissingDependency)
	assert.EqualError(t, err, `plugin users2 (root) needs plugin "db", which is not registered before it in root or an ancestor`)

	s2 := app.New()
	require.NoError(t, s2.Register(shared))
	require.NoError(t, s2.Ready(), "the first registration's plugin value did not gain DependsOn")

	err = app.New().Register(noop, app.Supports(">=banana"))
	require.ErrorIs(t, err, app.ErrInvalidPlugin)
}

// The old names still compile and mean what they meant.
func TestDeprecatedNamesStillWork(t *testing.T) {
	t.Parallel()
	noop := func(*app.Server) error { return nil }
	var opt app.RegisterOption = app.PluginName("old")
	s := app.New()
	require.NoError(t, s.Register(app.Wrap(noop, opt)))
	var seen []string
	require.NoError(t, s.OnRoute(func(ro *app.RouteOptions) error {
		seen = append(seen, ro.Method)
		return nil
	}))
	require.NoError(t, s.Get("/", func() {}))
	require.NoError(t, s.Ready())
	assert.True(t, s.HasPlugin("old"))
	assert.Equal(t, []string{"GET", "HEAD"}, seen)
	assert.Same(t, httpx.ErrDecoratorType, app.ErrDecoratorType)
}
