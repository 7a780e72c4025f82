package app

import (
	"fmt"
	"slices"
	"strings"
)

// PrintOption configures PrintRoutes.
type PrintOption func(*printOptions)

type printOptions struct{ hooks bool }

// IncludeHooks makes PrintRoutes list each route's effective hook chain,
// in the order the hooks run.
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
