package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/burrow-go/burrow/scope"
)

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
		for _, kind := range []scope.Kind{scope.Request, scope.Service} {
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

// DOT returns the context tree in Graphviz's DOT language: one box per
// context with its prefix and declarations, an edge from each context to
// its children, and wrapped plugins as dashed notes on the context they
// load into. Render it with `dot -Tsvg`.
func (s *Server) DOT() string {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	var b strings.Builder
	b.WriteString("digraph burrow {\n\trankdir=TB;\n\tnode [shape=box, fontname=\"Helvetica\"];\n")
	ids := map[*scope.Context]string{}
	s.a.walk(func(n *node) {
		id := fmt.Sprintf("c%d", len(ids))
		ids[n.ctx] = id
		lines := []string{n.ctx.Name()}
		if n.prefix != "" {
			lines = append(lines, "prefix "+n.prefix)
		}
		for _, d := range n.ctx.Decls() {
			lines = append(lines, declString(d))
		}
		fmt.Fprintf(&b, "\t%s [label=%s];\n", id, dotQuote(strings.Join(lines, "\n")))
		if p := n.ctx.Parent(); p != nil {
			fmt.Fprintf(&b, "\t%s -> %s;\n", ids[p], id)
		}
		for i, w := range n.wrapped() {
			wid := fmt.Sprintf("%s_w%d", id, i)
			fmt.Fprintf(&b, "\t%s [label=%s, shape=note, style=dashed];\n\t%s -> %s [style=dashed, arrowhead=none];\n",
				wid, dotQuote(w+" (wrapped)"), id, wid)
		}
	})
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string, lines separated by "\n".
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
