package scope

import (
	"fmt"
	"reflect"
)

// Kind tells request decorators, services and request values apart.
type Kind uint8

const (
	// Request is a request decorator: a named value every request starts
	// with, which hooks may replace for one request.
	Request Kind = iota + 1
	// Service is a server decorator: a typed value (optionally named) built
	// once by dig and shared by every request.
	Service
	// Value is a request value: a typed value (optionally named) built by a
	// request-scoped constructor at most once per request, the first time
	// the request needs it.
	Value
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "request decorator"
	case Service:
		return "service"
	case Value:
		return "request value"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Key identifies a declaration. Request decorators are keyed by name alone
// (their type is checked separately, so a wrong type gets its own message);
// services are keyed by type and optional name or value group, as in dig;
// request values by type and optional name.
type Key struct {
	Kind  Kind
	Name  string
	Type  reflect.Type // services and request values
	Group string       // services only: the dig value group the values join
}

func (k Key) String() string {
	switch {
	case k.Kind == Request:
		return fmt.Sprintf("request decorator %q", k.Name)
	case k.Group != "":
		return fmt.Sprintf("%v %v in group %q", k.Kind, k.Type, k.Group)
	case k.Name != "":
		return fmt.Sprintf("%v %v named %q", k.Kind, k.Type, k.Name)
	default:
		return fmt.Sprintf("%v %v", k.Kind, k.Type)
	}
}

func (k Key) matches(d *Decl) bool {
	if d.Kind != k.Kind || d.Name != k.Name || d.Group != k.Group {
		return false
	}
	return k.Kind == Request || d.Type == k.Type
}

// Decl is one declaration made in a context.
type Decl struct {
	Key
	// ValueType is the type of the value a request decorator holds (for
	// services it equals Type).
	ValueType reflect.Type
	// Context is where the declaration is visible from: the registering
	// context, or its parent for a wrapped plugin.
	Context *Context
	// Plugin names the wrapped plugin that made the declaration, if any.
	Plugin string
	// Slot is a request decorator's or request value's index in a
	// request's value slots. A request value provided as several types
	// (its own and interfaces) has one declaration per type, all with the
	// same slot.
	Slot int
}

// Where describes the place of d for messages: its context path, and the
// wrapped plugin that declared it when there is one.
func (d *Decl) Where() string {
	if d.Plugin != "" {
		return fmt.Sprintf("%s (by wrapped plugin %s)", d.Context.Path(), d.Plugin)
	}
	return d.Context.Path()
}

// declare records d in c; DeclareRequest, Provide and DeclareValue all
// go through it. A request decorator whose name is already visible from c
// is refused, like Fastify refuses re-declaring a value decorator; a
// service or a request value may shadow one an ancestor provides, but not
// one provided in c itself. A value group takes any number of values:
// declaring one c already declares returns that declaration. A new
// request decorator gets the next free slot; a request value gets the
// slot d names, which DeclareValue hands out.
func (c *Context) declare(d Decl) (*Decl, error) {
	switch {
	case d.Kind == Request:
		if prev := c.Lookup(d.Key); prev != nil {
			return nil, &DuplicateError{Key: d.Key, In: c, Prev: prev}
		}
	case d.Group != "" && d.Kind == Service:
		for _, prev := range c.decls {
			if d.Key.matches(prev) {
				return prev, nil
			}
		}
	default:
		for _, prev := range c.decls {
			if d.Key.matches(prev) {
				return nil, &DuplicateError{Key: d.Key, In: c, Prev: prev}
			}
		}
	}
	nd := d
	nd.Context = c
	if nd.ValueType == nil {
		nd.ValueType = nd.Type
	}
	if nd.Kind == Request {
		nd.Slot = *c.slots
		*c.slots++
	}
	c.decls = append(c.decls, &nd)
	return &nd, nil
}

// Decls are the declarations made in c itself, in order.
func (c *Context) Decls() []*Decl { return c.decls }

// Slots is the number of request slots handed out in the whole tree.
func (c *Context) Slots() int { return *c.slots }

// Lookup finds the declaration of k visible from c: c's own first, then its
// ancestors', nearest first. It returns nil when none is visible.
func (c *Context) Lookup(k Key) *Decl {
	for n := c; n != nil; n = n.parent {
		for i := len(n.decls) - 1; i >= 0; i-- {
			if k.matches(n.decls[i]) {
				return n.decls[i]
			}
		}
	}
	return nil
}

// Visible lists every declaration of kind visible from c, nearest first;
// a shadowed service is left out. A value group is listed in every
// context that adds to it, as each adds values rather than shadowing.
func (c *Context) Visible(kind Kind) []*Decl {
	var out []*Decl
	seen := map[Key]bool{}
	for n := c; n != nil; n = n.parent {
		for _, d := range n.decls {
			if d.Kind == kind && (d.Group != "" || !seen[d.Key]) {
				seen[d.Key] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// Providers lists every declaration of k anywhere in c's tree, in tree
// order, whether or not c can see it.
func (c *Context) Providers(k Key) []*Decl {
	var out []*Decl
	c.root().Walk(func(n *Context) bool {
		for _, d := range n.decls {
			if k.matches(d) {
				out = append(out, d)
			}
		}
		return true
	})
	return out
}

// Require returns the declaration of k visible from c, or a
// *NotVisibleError that says where k is provided instead.
func (c *Context) Require(k Key) (*Decl, error) {
	if d := c.Lookup(k); d != nil {
		return d, nil
	}
	e := &NotVisibleError{Key: k, From: c, ProvidedIn: c.Providers(k)}
	if len(e.ProvidedIn) == 0 {
		e.Implementers = c.implementers(k.Type)
	}
	return nil, e
}
