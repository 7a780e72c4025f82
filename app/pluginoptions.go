package app

import (
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app/internal/semver"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// meta is what a plugin declares about itself, checked before its body
// runs.
type meta struct {
	dependencies []string
	needs        []scope.Key
	version      string       // as written, for messages
	constraint   semver.Range // nil: any version
}

// DependsOn names plugins that must be registered before this one, in the
// context that registers it or an ancestor. A plugin registered in a
// sibling context does not count: its decorators and hooks are not
// visible from here.
func DependsOn(plugins ...string) PluginOption {
	return func(p *Plugin) { p.meta.dependencies = append(p.meta.dependencies, plugins...) }
}

// NeedsDecorators names request decorators the plugin uses; each must be
// visible from the context that registers the plugin.
func NeedsDecorators(names ...string) PluginOption {
	return func(p *Plugin) {
		for _, n := range names {
			p.meta.needs = append(p.meta.needs, scope.Key{Kind: scope.Request, Name: n})
		}
	}
}

// NeedsService names a service of type T (provided with Decorate, under
// name if one is given) that must be visible from the context that
// registers the plugin.
func NeedsService[T any](name ...string) PluginOption {
	return func(p *Plugin) {
		k := scope.Key{Kind: scope.Service, Type: reflect.TypeFor[T]()}
		if len(name) > 0 {
			k.Name = name[0]
		}
		p.meta.needs = append(p.meta.needs, k)
	}
}

// Supports states the Burrow versions the plugin works with, as a range:
// "0.4.x", "^0.4.0", "~0.4.1", ">=0.3.0 <1.0.0", "1.x || 2.x", "*". An
// unparsable range is an error at Register; a range that excludes
// Version stops Ready.
func Supports(versions string) PluginOption {
	return func(p *Plugin) {
		c, err := semver.ParseRange(versions)
		if err != nil {
			p.fail(err)
			return
		}
		p.meta.version, p.meta.constraint = versions, c
	}
}

// Check runs fn when the plugin is made (by Wrap or Describe) or, given
// to Register, registered; if it
// fails, Register refuses the plugin with a *PluginError naming it and
// the registering context, so a plugin whose options are wrong fails
// where it is registered, before anything loads. Ready reports the same
// error.
func Check(fn func() error) PluginOption {
	return func(p *Plugin) {
		if err := fn(); err != nil {
			p.fail(err)
		}
	}
}

// checkMeta verifies p's declarations against n, the context registering
// it, before p loads.
func (a *instance) checkMeta(n *node, p *pendingPlugin) error {
	if p.wrapped && slices.Contains(n.plugins, p.name) {
		return errkind.New(ErrDuplicatePlugin, "is already registered in %s", n.ctx.Path())
	}
	m := p.meta
	if m.constraint != nil && !m.constraint.Allows(semver.MustParse(Version)) {
		return errkind.New(ErrVersionMismatch, "supports Burrow %s, this is %s", m.version, Version)
	}
	for _, dep := range m.dependencies {
		if a.hasPlugin(n, dep) {
			continue
		}
		var elsewhere []string
		a.walk(func(o *node) {
			if slices.Contains(o.plugins, dep) {
				elsewhere = append(elsewhere, o.ctx.Path())
			}
		})
		if len(elsewhere) > 0 {
			return errkind.New(ErrMissingDependency, "needs plugin %q, which is only registered in %s, not in %s or an ancestor",
				dep, strings.Join(elsewhere, " and "), n.ctx.Path())
		}
		return errkind.New(ErrMissingDependency, "needs plugin %q, which is not registered before it in %s or an ancestor",
			dep, n.ctx.Path())
	}
	for _, k := range m.needs {
		if _, err := n.ctx.Require(k); err != nil {
			var nv *scope.NotVisibleError
			if errors.As(err, &nv) && len(nv.ProvidedIn) == 0 {
				// Checked as the plugin loads: a plugin registered after it
				// that declares the value has not loaded yet.
				return errkind.New(ErrMissingDecorator, "needs %w before it: register what provides it before this plugin, in %s or an ancestor",
					err, n.ctx.Path())
			}
			return errkind.New(ErrMissingDecorator, "needs %w", err)
		}
	}
	return nil
}

// hasPlugin reports whether a plugin called name has started loading in n
// or an ancestor.
func (a *instance) hasPlugin(n *node, name string) bool {
	for _, p := range a.lineage(n) {
		if slices.Contains(p.plugins, name) {
			return true
		}
	}
	return false
}

// PluginOption configures a plugin: where it is made (Wrap, Describe) or
// where it is registered (Register). Options given to Register apply to
// that registration only, after the plugin's own.
type PluginOption func(*Plugin)

// Name names the plugin and the context it gets (default: the body's
// function name). Given to Register, it renames that registration.
func Name(name string) PluginOption { return func(p *Plugin) { p.name = name } }

// Prefix prefixes every route of the plugin's context (and its
// descendants) with prefix. A wrapped plugin has no context of its own:
// Register refuses it one with a Prefix, given to Wrap or to Register.
func Prefix(prefix string) PluginOption { return func(p *Plugin) { p.prefix = prefix } }
