package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/burrow-go/burrow/scope"
)

// PrintOption configures PrintRoutes.
type PrintOption func(*printOptions)

type printOptions struct{ hooks bool }

// IncludeHooks makes PrintRoutes list each route's effective hook chain,
// in the order the hooks run, and mark "handler: by reflection" a route
// whose handler is called through reflect.Value.Call (about 400 ns and
// two allocations per request more than the direct call of a typed
// route, Typed, TypedValue or the common shapes such as
// func(*httpx.Request, *httpx.Reply) error).
func IncludeHooks() PrintOption { return func(o *printOptions) { o.hooks = true } }

// PrintRoutes draws the routes as a tree of path segments, each with its
// methods and context path. Call it after Ready; before, it is empty.
func (s *Server) PrintRoutes(opts ...PrintOption) string {
	var o printOptions
	for _, opt := range opts {
		opt(&o)
	}
	type leaf struct {
		methods []string
		rt      *route
	}
	type trie struct {
		kids map[string]*trie
		leaf *leaf
	}
	root := &trie{kids: map[string]*trie{}}
	s.a.mu.Lock()
	s.a.router.Walk(func(method, pattern string, rt *route) {
		n := root
		for _, seg := range strings.Split(strings.TrimPrefix(pattern, "/"), "/") {
			k, ok := n.kids[seg]
			if !ok {
				k = &trie{kids: map[string]*trie{}}
				n.kids[seg] = k
			}
			n = k
		}
		if n.leaf == nil {
			n.leaf = &leaf{rt: rt}
		}
		n.leaf.methods = append(n.leaf.methods, method)
	})
	s.a.mu.Unlock()

	var b strings.Builder
	b.WriteString("/\n")
	var draw func(t *trie, indent string)
	draw = func(t *trie, indent string) {
		segs := make([]string, 0, len(t.kids))
		for seg := range t.kids {
			segs = append(segs, seg)
		}
		slices.Sort(segs)
		for i, seg := range segs {
			k := t.kids[seg]
			branch, next := "├── ", "│   "
			if i == len(segs)-1 {
				branch, next = "└── ", "    "
			}
			b.WriteString(indent + branch + seg)
			if k.leaf != nil {
				slices.Sort(k.leaf.methods)
				fmt.Fprintf(&b, " (%s) %s", strings.Join(k.leaf.methods, ", "), k.leaf.rt.info.Context)
			}
			b.WriteString("\n")
			if o.hooks && k.leaf != nil && k.leaf.rt.reflective {
				fmt.Fprintf(&b, "%s%s  • handler: by reflection\n", indent, next)
			}
			if o.hooks && k.leaf != nil {
				for kind, names := range k.leaf.rt.hookNames {
					if len(names) > 0 {
						fmt.Fprintf(&b, "%s%s  • %s: %s\n", indent, next, Hook(kind), strings.Join(names, ", "))
					}
				}
			}
			draw(k, indent+next)
		}
	}
	draw(root, "")
	return b.String()
}

// loadRecord is one plugin as loaded, for PrintPlugins.
type loadRecord struct {
	name    string
	wrapped bool
	took    time.Duration
	child   *node // the plugin's context; nil for a wrapped plugin
}

// PrintPlugins draws the plugin tree as Ready loaded it, with the time each
// plugin took (its body and everything it registered). Wrapped plugins are
// marked: they are leaves of the context that registered them. Call it
// after Ready; before, it shows the root alone.
func (s *Server) PrintPlugins() string {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	var b strings.Builder
	root := s.a.root
	fmt.Fprintf(&b, "%s %s\n", root.ctx.Name(), fmtDuration(root.loadTime))
	var draw func(n *node, indent string)
	draw = func(n *node, indent string) {
		for i, rec := range n.loaded {
			branch, next := "├── ", "│   "
			if i == len(n.loaded)-1 {
				branch, next = "└── ", "    "
			}
			kind := ""
			if rec.wrapped {
				kind = " (wrapped)"
			} else if rec.child.prefix != n.prefix {
				kind = " " + rec.child.prefix
			}
			fmt.Fprintf(&b, "%s%s%s%s %s\n", indent, branch, rec.name, kind, fmtDuration(rec.took))
			if rec.child != nil {
				draw(rec.child, indent+next)
			}
		}
	}
	draw(root, "")
	return b.String()
}

// fmtDuration prints d in milliseconds with two decimals, as load times
// are read by people comparing plugins, not by machines.
func fmtDuration(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// PrintVisibility says, for each context, what it declares, what it sees —
// request decorators and services — with the context each visible value
// comes from, and what is declared elsewhere in the tree but hidden from
// it. It is the encapsulation model of this server, as the handlers'
// parameters are checked against it.
func (s *Server) PrintVisibility() string {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	var b strings.Builder
	s.a.walk(func(n *node) {
		b.WriteString(n.ctx.Path())
		if wrapped := n.wrapped(); len(wrapped) > 0 {
			fmt.Fprintf(&b, "  [wrapped plugins: %s]", strings.Join(wrapped, ", "))
		}
		b.WriteString("\n")
		own := n.ctx.Decls()
		writeDecls(&b, "declares", own, nil)
		var seen []*scope.Decl
		for _, kind := range []scope.Kind{scope.Request, scope.Service, scope.Value} {
			seen = append(seen, n.ctx.Visible(kind)...)
		}
		writeDecls(&b, "sees", seen, n.ctx)
		var hidden []*scope.Decl
		s.a.walk(func(o *node) {
			for _, d := range o.ctx.Decls() {
				if n.ctx.Lookup(d.Key) == nil {
					hidden = append(hidden, d)
				}
			}
		})
		if len(hidden) > 0 {
			writeDecls(&b, "hidden", hidden, n.ctx)
		}
	})
	return b.String()
}

// writeDecls lists ds under label. For "sees", each value's origin is
// given relative to from; for "hidden", where it is declared.
func writeDecls(b *strings.Builder, label string, ds []*scope.Decl, from *scope.Context) {
	if len(ds) == 0 {
		fmt.Fprintf(b, "  %-9s —\n", label)
		return
	}
	for i, d := range ds {
		shown := label
		if i > 0 {
			shown = ""
		}
		fmt.Fprintf(b, "  %-9s %s", shown, declString(d))
		switch {
		case label == "hidden":
			fmt.Fprintf(b, "  in %s", d.Where())
		case from != nil && d.Context == from:
			fmt.Fprintf(b, "  from here%s", strings.TrimPrefix(d.Where(), from.Path()))
		case from != nil:
			fmt.Fprintf(b, "  from %s", d.Where())
		case d.Plugin != "":
			fmt.Fprintf(b, "  by wrapped plugin %s", d.Plugin)
		}
		b.WriteString("\n")
	}
}

// declString is a declaration with its value type; a service's key
// already names its type.
func declString(d *scope.Decl) string {
	if d.Kind == scope.Request {
		return fmt.Sprintf("%s %v", d.Key, d.ValueType)
	}
	return d.Key.String()
}
