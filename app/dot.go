package app

import (
	"fmt"
	"strings"

	"github.com/burrow-go/burrow/scope"
)

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
