package scope

import (
	"fmt"
	"reflect"
	"slices"
)

// DeclareValue declares a request value in c on behalf of the wrapped
// plugin plugin ("" for none): one value per request, of type t, provided
// as t and as each interface in as, under name when name is not "". Every
// declaration it returns (t's first) shares one new request slot. A
// request value c itself already provides as one of these types is
// refused with a *DuplicateError, and then none is declared; a child may
// shadow an ancestor's.
func (c *Context) DeclareValue(t reflect.Type, as []reflect.Type, name, plugin string) ([]*Decl, error) {
	types := []reflect.Type{t}
	for _, it := range as {
		if it.Kind() != reflect.Interface || !t.Implements(it) {
			return nil, fmt.Errorf("%v cannot be provided as %v: %w", t, it, errNotInterface(t, it))
		}
		if !slices.Contains(types, it) {
			types = append(types, it)
		}
	}
	kept, slot := len(c.decls), *c.slots
	out := make([]*Decl, 0, len(types))
	for _, it := range types {
		d, err := c.declare(Decl{Key: Key{Kind: Value, Type: it, Name: name}, ValueType: t, Plugin: plugin, Slot: slot})
		if err != nil {
			clear(c.decls[kept:])
			c.decls = c.decls[:kept] // all or nothing
			return nil, err
		}
		out = append(out, d)
	}
	*c.slots++
	return out, nil
}

// errNotInterface says why t cannot be provided as as.
func errNotInterface(t, as reflect.Type) error {
	if as.Kind() != reflect.Interface {
		return fmt.Errorf("%v is not an interface", as)
	}
	return fmt.Errorf("%v does not implement it", t)
}

// implementers lists the services and request values visible from c whose
// type implements it, an interface that nothing visible provides as
// itself, nearest first: what the user most likely meant to provide as it.
func (c *Context) implementers(it reflect.Type) []*Decl {
	if it == nil || it.Kind() != reflect.Interface {
		return nil
	}
	var out []*Decl
	for _, kind := range []Kind{Service, Value} {
		for _, d := range c.Visible(kind) {
			if d.Type != nil && d.Type != it && d.Type == d.ValueType && d.Type.Implements(it) {
				out = append(out, d)
			}
		}
	}
	return out
}
