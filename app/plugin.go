package app

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/internal/errkind"
)

// Plugin is a plugin made with Wrap or Describe: a body plus what it
// declares about itself — a name, the plugins it depends on, the
// decorators and services it needs, the Burrow versions it supports.
// Ready checks the declarations against the context that registers the
// plugin, before its body runs, and fails with a *PluginError when one
// does not hold.
type Plugin struct {
	fn      func(*Server) error
	name    string
	prefix  string // a Register option; refused on a wrapped plugin
	wrapped bool
	meta    meta
	err     error // from options, reported by Register
}

// fail records err unless an earlier option failed: Register reports the
// first, as one sentence.
func (p *Plugin) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Name is the plugin's name, used in context paths, errors and logs.
func (p *Plugin) Name() string { return p.name }

// Wrap returns fn as a wrapped plugin: it gets no context of its own, so
// what it registers lands in the context that registers it and is visible
// there and in that context's descendants. Use it for plugins whose whole
// point is to decorate or hook their parent, such as an auth check.
func Wrap(fn func(*Server) error, opts ...PluginOption) *Plugin {
	return newPlugin(fn, true, opts)
}

// Describe returns fn as an encapsulated plugin (it gets a child context,
// like a plain function) that carries a name and declarations, for
// plugins meant to be shared: see DependsOn, NeedsDecorators, NeedsService
// and Supports.
func Describe(fn func(*Server) error, opts ...PluginOption) *Plugin {
	return newPlugin(fn, false, opts)
}

func newPlugin(fn func(*Server) error, wrapped bool, opts []PluginOption) *Plugin {
	p := &Plugin{fn: fn, name: funcName(fn), wrapped: wrapped}
	for _, o := range opts {
		o(p)
	}
	return p
}

type pendingPlugin struct {
	fn      func(*Server) error
	name    string
	prefix  string
	wrapped bool
	meta    meta
	pos     []int // the position of the Register call, for a wrapped plugin's hooks
}

// Register records a plugin, to be loaded by Ready after the plugins
// registered before it in this context. plugin is a func(*Server) error (or
// func(*Server)) that gets a child context of its own, or a *Plugin made
// with Wrap. Register returns an error for anything else, and after Ready;
// a failure is also reported by Ready, so ignoring the error is safe.
// Every PluginOption applies: Name as usual, Prefix to an encapsulated
// plugin (a wrapped one is refused with it), and the declarations
// (DependsOn, Supports, …) check this registration.
func (s *Server) Register(plugin any, opts ...PluginOption) error {
	return s.mutate("plugin "+pluginName(plugin, opts), func() error {
		var v Plugin
		switch pl := plugin.(type) {
		case func(*Server) error:
			v = Plugin{fn: pl, name: funcName(pl)}
		case func(*Server):
			v = Plugin{fn: func(s *Server) error { pl(s); return nil }, name: funcName(pl)}
		case *Plugin:
			if pl == nil || pl.fn == nil {
				return errkind.New(ErrInvalidPlugin, "invalid plugin in %s: nil *app.Plugin", s.Path())
			}
			// A copy: this registration's options must not change the
			// plugin value, which may be registered elsewhere too.
			v = *pl
			v.meta.dependencies = slices.Clip(v.meta.dependencies)
			v.meta.needs = slices.Clip(v.meta.needs)
		default:
			return errkind.New(ErrInvalidPlugin, "invalid plugin in %s: %T is not a func(*app.Server) error, func(*app.Server) or *app.Plugin", s.Path(), plugin)
		}
		if v.fn == nil {
			return errkind.New(ErrInvalidPlugin, "invalid plugin in %s: nil function", s.Path())
		}
		for _, o := range opts {
			o(&v)
		}
		if v.name == "" {
			// Numbered by a count of its own: the queue and the loaded
			// list are both short while the context loads, when a wrapped
			// plugin's body may still register here.
			v.name = fmt.Sprintf("plugin-%d", s.n.registered)
		}
		if v.wrapped && v.prefix != "" {
			v.fail(errors.New("app.Prefix applies to a plugin's own context, which a wrapped plugin does not have"))
		}
		if v.err != nil {
			return &PluginError{Plugin: v.name, Context: s.Path(), Err: errkind.New(ErrInvalidPlugin, "is invalid: %w", v.err)}
		}
		s.n.registered++
		p := &pendingPlugin{fn: v.fn, name: v.name, prefix: v.prefix, wrapped: v.wrapped, meta: v.meta}
		p.pos = s.calls().take()
		s.n.pending = append(s.n.pending, p)
		return nil
	})
}

// pluginName is the name plugin would be registered under with opts, for
// the error that refuses it: its Name, else its function's name.
func pluginName(plugin any, opts []PluginOption) string {
	var v Plugin
	switch pl := plugin.(type) {
	case *Plugin:
		if pl != nil {
			v = *pl // a copy, as Register's: the options must not change pl
			v.meta.dependencies = slices.Clip(v.meta.dependencies)
			v.meta.needs = slices.Clip(v.meta.needs)
		}
	default:
		v.name = funcName(plugin)
	}
	for _, o := range opts {
		o(&v)
	}
	if v.name == "" {
		return "(unnamed)"
	}
	return v.name
}

// HasPlugin reports whether a plugin called name was registered in this
// context or an ancestor and has started loading. A plugin registered in a
// sibling, or in a descendant, does not count. Inside a plugin it is true
// for the plugin itself, its parent plugin, and the plugins its ancestors
// registered before it, encapsulated or wrapped: a registration is
// visible where its context's declarations are (Fastify reports only
// plugins made with fastify-plugin).
func (s *Server) HasPlugin(name string) bool {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.a.hasPlugin(s.n, name)
}

// funcName is the name of fn without its package: "publicContext" for
// main.publicContext, "(*T).Load" for a method value. It is "" for a
// closure, whose compiler-made name ("outer.func1") changes with inlining.
func funcName(fn any) string {
	if h, ok := fn.(Handler); ok {
		fn = h.target()
	}
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	name := f.Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[i+1:] // drop the package name
	}
	for _, part := range strings.Split(name, ".") {
		// Closures are "outer.func1", nested ones "outer.func1.2".
		if strings.HasPrefix(part, "func") && strings.Trim(part[4:], "0123456789") == "" {
			return ""
		}
	}
	return strings.TrimSuffix(name, "-fm")
}

// joinPrefix appends a plugin's prefix to its parent's: one slash between
// them, none at the end.
func joinPrefix(parent, prefix string) string {
	if prefix == "" {
		return parent
	}
	prefix = "/" + strings.Trim(prefix, "/")
	if prefix == "/" {
		return parent
	}
	return strings.TrimSuffix(parent, "/") + prefix
}
