package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/dig"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/scope"
)

// Services provided through dig result structs.

type (
	outA      struct{ name string }
	outB      struct{ name string }
	outPlugin struct{ name string }
	outDep    struct{}
)

type outResults struct {
	dig.Out
	A       *outA
	B       *outB        `name:"b"`
	Plugins *outPlugin   `group:"plugins"`
	More    []*outPlugin `group:"plugins,flatten"`
}

func newOutResults() outResults {
	return outResults{A: &outA{"a"}, B: &outB{"b"}, Plugins: &outPlugin{"p1"}, More: []*outPlugin{{"p2"}}}
}

func TestDigOutResultsAreRegistered(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(newOutResults))
	s.Register(app.Describe(noop, app.Name("user"),
		app.NeedsService[*outA](), app.NeedsService[*outB]("b")))
	type deps struct {
		app.In
		A *outA
		B *outB `name:"b"`
	}
	s.Get("/", func(d deps) (string, error) { return d.A.name + d.B.name, nil })
	require.NoError(t, s.Ready(), "NeedsService sees services of a result struct")
	_, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, "ab", body)

	vis := s.PrintVisibility()
	for _, line := range []string{
		"service *app_test.outA  from here",
		`service *app_test.outB named "b"  from here`,
		`service *app_test.outPlugin in group "plugins"  from here`,
	} {
		assert.Contains(t, vis, line)
	}
	assert.NotContains(t, vis, "outResults", "the result struct itself is no service")
	assert.Equal(t, 1, strings.Count(vis, `in group "plugins"  from here`), "one group, listed once per context")
}

func TestDigOutResultsSeenFromAChild(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate(newOutResults)
	var shadowed error
	s.Register(func(c *app.Server) error {
		return c.Register(app.Describe(noop, app.Name("user"), app.NeedsService[*outB]("b")))
	}, app.Name("child"))
	s.Register(func(c *app.Server) error {
		shadowed = c.Decorate(newOutResults)
		return nil
	}, app.Name("shadow"))
	require.NoError(t, s.Ready(), "a child sees its parent's result-struct services")
	require.NoError(t, shadowed, "and may shadow them like any service")
}

func TestDigOutResultsDuplicateInOneContext(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(newOutResults))
	err := s.Decorate(func() *outA { return &outA{} })
	require.ErrorIs(t, err, scope.ErrDuplicate)
	assert.Contains(t, err.Error(), "service *app_test.outA is already declared in root")
	type more struct {
		dig.Out
		P *outPlugin `group:"plugins"`
	}
	assert.NoError(t, s.Decorate(func() more { return more{P: &outPlugin{}} }), "groups take many values")
}

func TestDigOutServiceWithAMissingDependency(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate(func(*outDep) outResults { return newOutResults() })
	s.Get("/", func(*outA) {})
	err := s.Ready()
	require.Error(t, err)
	var re *app.RouteError
	require.ErrorAs(t, err, &re)
	assert.False(t, errors.Is(err, scope.ErrNotVisible), "it is visible; it cannot be built: %v", err)
	assert.Contains(t, err.Error(), "needs service *app_test.outA, which could not be built")
	assert.Contains(t, err.Error(), "*app_test.outDep")
}
