package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

type resolveDB struct{ name string }

type resolveDeps struct {
	app.In
	DB   *resolveDB
	Name string `name:"who" optional:"true"`
}

func TestResolveFillsServicesAtReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(&resolveDB{name: "main"}))
	var got resolveDeps
	require.NoError(t, s.Register(func(c *app.Server) error {
		return c.OnReady(func() error {
			var err error
			got, err = app.Resolve[resolveDeps](c)
			return err
		})
	}))
	require.NoError(t, s.Ready())
	assert.Equal(t, "main", got.DB.name)
	assert.Empty(t, got.Name)
}

func TestResolveNamesTheSibling(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(func(c *app.Server) error { return c.Decorate(&resolveDB{}) }, app.Name("db")))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return c.OnReady(func() error {
			_, err := app.Resolve[resolveDeps](c)
			return err
		})
	}, app.Name("jobs")))
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sibling context root > db")
}

func TestResolveRefusesRequestThings(t *testing.T) {
	t.Parallel()
	type deps struct {
		app.In
		User string `name:"user"`
	}
	s := app.New()
	require.NoError(t, s.DecorateRequest("user", ""))
	require.NoError(t, s.OnReady(func() error {
		_, err := app.Resolve[deps](s)
		return err
	}))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "deps.User in root: only services can be resolved outside a request")
}

func TestResolveBeforeReadyIsRefused(t *testing.T) {
	t.Parallel()
	_, err := app.Resolve[resolveDeps](app.New())
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	_, err = app.Resolve[resolveDB](app.New())
	require.ErrorIs(t, err, app.ErrInvalidHandler)
}
