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

	container *dig.Container // root only
	scope     *dig.Scope

	decls   []*Decl
	wrapped []string // names of wrapped plugins loaded into this context
	slots   *int     // shared by the whole tree: the next request slot index
}

// New returns the root context of a new tree, backed by a new dig.Container
// built with opts.
func New(name string, opts ...dig.Option) *Context {
	c := dig.New(opts...)
	return &Context{
		name:      name,
		container: c,
		scope:     c.Scope(name),
		slots:     new(int),
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

// Children are the contexts created in c, in creation order.
func (c *Context) Children() []*Context { return c.children }

// Depth is 0 for the root, 1 for its children, and so on.
func (c *Context) Depth() int { return c.depth }

// Scope is the dig scope backing c. Use it only at start-up.
func (c *Context) Scope() *dig.Scope { return c.scope }

// Container is the dig container of the whole tree.
func (c *Context) Container() *dig.Container { return c.Root().container }

// Root is the top of c's tree.
func (c *Context) Root() *Context {
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

// AddWrapped records that a wrapped plugin named name was loaded into c.
func (c *Context) AddWrapped(name string) { c.wrapped = append(c.wrapped, name) }

// Wrapped lists the wrapped plugins loaded into c, in load order.
func (c *Context) Wrapped() []string { return c.wrapped }

// IsAncestorOf reports whether c is other or one of other's ancestors, that
// is, whether what c declares is visible from other.
func (c *Context) IsAncestorOf(other *Context) bool {
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
	case other.IsAncestorOf(c):
		return "ancestor context"
	case c.IsAncestorOf(other):
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
