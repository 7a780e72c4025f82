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

type printOptions struct{ hooks, json bool }

// IncludeHooks makes PrintRoutes list each route's effective hook chain,
// in the order the hooks run, and the request values the route may build
// (its handler's, its hooks' and their constructors' dependencies). It
// marks "by reflection" what is called through reflect.Value.Call (about
// 400 ns and two allocations per request more than a direct call): a
// handler other than a typed route, Typed, TypedValue or the common
// shapes such as func(*httpx.Request, *httpx.Reply) error, and a request
// value's constructor not made by Provider.
func IncludeHooks() PrintOption { return func(o *printOptions) { o.hooks = true } }

// AsJSON makes PrintRoutes write the routes (Routes) as a JSON array
// instead of a tree, one object per route with its guards, for tools
// and tests:
//
//	[{"method":"PATCH","path":"/todos/:id","context":"root > api",
//	  "guards":{"auth":["bearer","session"],"csrf":true,"rateLimit":["user"],"cors":false}}]
//
// The arrays are never null. IncludeHooks adds nothing to it.
func AsJSON() PrintOption { return func(o *printOptions) { o.json = true } }

// PrintRoutes draws the routes as a tree of path segments, each with its
// methods and context path. The routes of a path share a line while they
// agree, and are drawn on lines of their own where they differ: in
// context, in guards (DeclareGuard, listed under a route that has any:
// the schemes that authenticate it, or "no auth", CSRF, rate-limit
// policies, CORS, shedding), in config values (WithConfig, listed under the route) or,
// with IncludeHooks, in hook chain, request values or reflective
// handler. Call it after Ready; before, it is empty.
func (s *Server) PrintRoutes(opts ...PrintOption) string {
	var o printOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.json {
		return routesJSON(s.Routes())
	}
	type trie struct {
		kids   map[string]*trie
		groups []*routeGroup
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
		n.groups = addToGroup(n.groups, method, rt, o.hooks)
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
			for _, g := range k.groups {
				slices.Sort(g.methods)
			}
			slices.SortFunc(k.groups, func(a, b *routeGroup) int { return strings.Compare(a.methods[0], b.methods[0]) })
			if len(k.groups) == 0 {
				b.WriteString(indent + branch + seg + "\n")
			}
			for j, g := range k.groups {
				lead := indent + branch
				if j > 0 {
					lead = indent + next
				}
				fmt.Fprintf(&b, "%s%s (%s) %s\n", lead, seg, strings.Join(g.methods, ", "), g.rt.info.Context)
				for _, line := range g.details {
					fmt.Fprintf(&b, "%s%s  • %s\n", indent, next, line)
				}
			}
			draw(k, indent+next)
		}
	}
	draw(root, "")
	return b.String()
}

// routeGroup is the methods of a path whose routes print alike.
type routeGroup struct {
	methods []string
	rt      *route   // the first of them
	details []string // with IncludeHooks: the lines under the route
}

// addToGroup adds the route of method to the group of groups it prints
// like, or to a new one.
func addToGroup(groups []*routeGroup, method string, rt *route, hooks bool) []*routeGroup {
	var details []string
	if rt.desc != nil && rt.desc.Guards.any() {
		details = append(details, "guards: "+rt.desc.Guards.String())
	}
	if line := rt.configLine(); line != "" {
		details = append(details, line)
	}
	if hooks {
		details = append(details, rt.printDetails()...)
	}
	for _, g := range groups {
		if g.rt == rt || g.rt.info.Context == rt.info.Context && slices.Equal(g.details, details) {
			g.methods = append(g.methods, method)
			return groups
		}
	}
	return append(groups, &routeGroup{methods: []string{method}, rt: rt, details: details})
}

// printDetails are the lines IncludeHooks adds under a route: how its
// handler is called, the request values it may build, and its hook
// chain.
func (rt *route) printDetails() []string {
	var lines []string
	if rt.reflective {
		lines = append(lines, "handler: by reflection")
	}
	if len(rt.values) > 0 {
		names := make([]string, len(rt.values))
		for i, p := range rt.values {
			names[i] = p.name()
			if p.ctor == nil {
				names[i] += " (by reflection)"
			}
		}
		lines = append(lines, "request values: "+strings.Join(names, ", "))
	}
	for kind, names := range rt.hookNames {
		if len(names) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s", Hook(kind), strings.Join(names, ", ")))
		}
	}
	return lines
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
