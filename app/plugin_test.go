package app_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

func TestPluginFailuresNameThePlugin(t *testing.T) {
	boom := errors.New("boom")
	// A timed-out plugin body keeps running in its goroutine (Go cannot
	// stop it); release lets it end, so no goroutine outlives the test.
	// The time-out bounds every plugin body, the outer one's too: it is
	// long enough that a loaded machine never stalls that quick body past
	// it, and the test does not wait on it but for the blocked one.
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name    string
		plugin  any
		timeout time.Duration
		is      error
		msg     string
	}{
		{"error", func(*app.Server) error { return boom }, 0, boom, "plugin db (root > api > db) failed: boom"},
		{"panic", func(*app.Server) error { panic("kaboom") }, 0, app.ErrPlugin, "plugin db (root > api > db) failed: panic: kaboom"},
		{"time-out", func(*app.Server) error { <-release; return nil }, 500 * time.Millisecond, app.ErrPluginTimeout,
			"plugin db (root > api > db) timed out after 500ms"},
		{"wrapped error", app.Wrap(func(*app.Server) error { return boom }, app.Name("db")), 0, boom,
			"plugin db (root > api) failed: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New(app.WithPluginTimeout(tt.timeout))
			s.Register(func(api *app.Server) error {
				return api.Register(tt.plugin, app.Name("db"))
			}, app.Name("api"))
			err := s.Ready()
			require.ErrorIs(t, err, tt.is)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.msg, err.Error())
			// Later calls give the same answer.
			assert.ErrorIs(t, s.Ready(), tt.is)
			assert.ErrorIs(t, s.Get("/late", func() {}), app.ErrBootFailed)
		})
	}
}

func TestPluginsLoadDepthFirstInRegistrationOrder(t *testing.T) {
	var order []string
	note := func(name string, then ...func(*app.Server)) func(*app.Server) error {
		return func(s *app.Server) error {
			order = append(order, name)
			for _, f := range then {
				f(s)
			}
			return nil
		}
	}
	s := app.New()
	s.Register(note("a", func(s *app.Server) {
		s.Register(note("a1"))
		s.Register(app.Wrap(note("aw", func(s *app.Server) { s.Register(note("aw1")) })))
		s.Register(note("a2"))
	}))
	s.Register(note("b"))
	require.NoError(t, s.Ready())
	assert.Equal(t, []string{"a", "a1", "aw", "aw1", "a2", "b"}, order)
}

func TestDefaultPluginNamesComeFromFunctions(t *testing.T) {
	s := app.New()
	var path string
	s.Register(namedPlugin(&path))
	require.NoError(t, s.Ready())
	assert.Equal(t, "root > plugin-0", path, "a closure has no stable name")

	// A closure inside a closure ("outer.func1.1") neither.
	s = app.New()
	s.Register(func(c *app.Server) error {
		c.Register(app.Wrap(func(*app.Server) error { return nil }))
		return c.Register(app.Wrap(func(*app.Server) error { return nil }))
	})
	require.NoError(t, s.Ready(), "two anonymous wrapped plugins are not duplicates")
	assert.True(t, s.HasPlugin("plugin-0"))

	s = app.New()
	s.Register(publicContext)
	require.NoError(t, s.Ready())
	assert.True(t, s.HasPlugin("publicContext"))
}

// TestUnnamedPluginsRegisteredWhileLoadingGetNewNames: a context's
// unnamed plugins are numbered in registration order, also when one is
// registered while the context loads (by a wrapped plugin's body, after
// Ready took the queue). A number used twice refused a wrapped plugin as
// a duplicate and gave two encapsulated ones one context path.
func TestUnnamedPluginsRegisteredWhileLoadingGetNewNames(t *testing.T) {
	t.Parallel()
	for _, wrapped := range []bool{true, false} {
		t.Run(fmt.Sprint("wrapped=", wrapped), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var loaded []string // what each unnamed plugin sees, in load order
			plugin := func() any {
				body := func(s *app.Server) error {
					mu.Lock()
					defer mu.Unlock()
					loaded = append(loaded, s.Path())
					return nil
				}
				if wrapped {
					return app.Wrap(body)
				}
				return body
			}
			s := app.New()
			require.NoError(t, s.Register(app.Wrap(func(s *app.Server) error { return s.Register(plugin()) })))
			require.NoError(t, s.Register(plugin()))
			require.NoError(t, s.Ready(), "the one registered while root loads is not plugin-1 again")
			for _, name := range []string{"plugin-0", "plugin-1", "plugin-2"} {
				assert.True(t, s.HasPlugin(name), name)
			}
			if wrapped {
				assert.Equal(t, []string{"root", "root"}, loaded)
			} else {
				assert.Equal(t, []string{"root > plugin-2", "root > plugin-1"}, loaded, "each its own context")
			}
		})
	}
}

func namedPlugin(path *string) func(*app.Server) error {
	return func(s *app.Server) error { *path = s.Path(); return nil }
}

func publicContext(*app.Server) error { return nil }

func TestRegisterRejectsNonPlugins(t *testing.T) {
	t.Parallel()
	s := app.New()
	assert.ErrorIs(t, s.Register(42), app.ErrInvalidPlugin)
	assert.ErrorIs(t, s.Register((*app.Plugin)(nil)), app.ErrInvalidPlugin)
	assert.ErrorIs(t, s.Ready(), app.ErrInvalidPlugin, "a failed registration also fails Ready")
}

func TestHasPluginInsideAPlugin(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	s := app.New()
	s.Register(func(c *app.Server) error {
		c.Register(noop, app.Name("sibling"))
		return c.Register(func(p *app.Server) error {
			for _, name := range []string{"parent", "sibling", "self", "later", "cousin"} {
				seen[name] = p.HasPlugin(name)
			}
			return nil
		}, app.Name("self"))
	}, app.Name("parent"))
	s.Register(func(o *app.Server) error { return o.Register(noop, app.Name("cousin")) }, app.Name("other"))
	s.Register(noop, app.Name("later"))
	require.NoError(t, s.Ready())
	assert.Equal(t, map[string]bool{
		"parent":  true,  // registered in an ancestor (root): what it declares is visible here
		"sibling": true,  // registered earlier by this plugin's parent context
		"self":    true,  // this plugin, registered by its parent
		"later":   false, // registered in the root, but not loaded yet
		"cousin":  false, // registered in another branch
	}, seen)
}

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
