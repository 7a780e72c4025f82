package scope

import (
	"strings"

	"go.uber.org/dig"
)

// PathSeparator joins context names in a context path, as in
// "root > publicContext > grandchildContext".
const PathSeparator = " > "

// Context is one node of the encapsulation tree. The root is created by
// New; every other context by Child.
type Context struct {
	name     string
	parent   *Context
	children []*Context
	depth    int

	scope *dig.Scope

	decls []*Decl
	slots *int // shared by the whole tree: the next request slot index
}

// New returns the root context of a new tree, backed by a new dig.Container
// built with opts.
func New(name string, opts ...dig.Option) *Context {
	return &Context{
		name:  name,
		scope: dig.New(opts...).Scope(name),
		slots: new(int),
	}
}

// Child creates a context below c, backed by a child of c's dig.Scope.
func (c *Context) Child(name string) *Context {
	ch := &Context{
		name:   name,
		parent: c,
		depth:  c.depth + 1,
		scope:  c.scope.Scope(name),
		slots:  c.slots,
	}
	c.children = append(c.children, ch)
	return ch
}

// Name is the context's own name.
func (c *Context) Name() string { return c.name }

// Parent is the context c was created in, or nil for the root.
func (c *Context) Parent() *Context { return c.parent }

// root is the top of c's tree.
func (c *Context) root() *Context {
	for c.parent != nil {
		c = c.parent
	}
	return c
}

// Path names every context from the root down to c, joined by
// PathSeparator.
func (c *Context) Path() string {
	names := make([]string, c.depth+1)
	for n := c; n != nil; n = n.parent {
		names[n.depth] = n.name
	}
	return strings.Join(names, PathSeparator)
}

// String is the context's path.
func (c *Context) String() string { return c.Path() }

// isAncestorOf reports whether c is other or one of other's ancestors, that
// is, whether what c declares is visible from other.
func (c *Context) isAncestorOf(other *Context) bool {
	for n := other; n != nil; n = n.parent {
		if n == c {
			return true
		}
	}
	return false
}

// Walk calls fn for c and every descendant, parents before children, in
// creation order. It stops early when fn returns false.
func (c *Context) Walk(fn func(*Context) bool) bool {
	if !fn(c) {
		return false
	}
	for _, ch := range c.children {
		if !ch.Walk(fn) {
			return false
		}
	}
	return true
}

// relation describes where other stands as seen from c, for error messages.
func (c *Context) relation(other *Context) string {
	switch {
	case other.isAncestorOf(c):
		return "ancestor context"
	case c.isAncestorOf(other):
		if other.parent == c {
			return "child context"
		}
		return "descendant context"
	case c.parent != nil && other.parent == c.parent:
		return "sibling context"
	default:
		return "context"
	}
}
