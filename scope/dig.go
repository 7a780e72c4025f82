package scope

import (
	"fmt"
	"reflect"

	"go.uber.org/dig"
)

// Slot is the token a request decorator is provided as in its context's dig
// scope, under the decorator's name. Resolving it from a route's scope is
// how dig itself decides whether the decorator is visible there; the value
// tells the route which request slot holds it.
type Slot struct{ Index int }

// ProvideSlot provides d's slot token into c's dig scope under d's name.
func (c *Context) ProvideSlot(d *Decl) error {
	slot := Slot{Index: d.Slot}
	return c.scope.Provide(func() Slot { return slot }, dig.Name(d.Name))
}

// ResolveSlot asks dig, from c, for the slot token of the request decorator
// called name.
func (c *Context) ResolveSlot(name string) (Slot, error) {
	v, err := c.Resolve(reflect.TypeFor[Slot](), name, false)
	if err != nil {
		return Slot{}, err
	}
	return v.Interface().(Slot), nil
}

// Resolve asks dig, from c, for the value of type t provided under name
// ("" for none). With optional, a value nobody visible provides is the zero
// value instead of an error. Call it only at start-up: every call reflects.
func (c *Context) Resolve(t reflect.Type, name string, optional bool) (reflect.Value, error) {
	tag := ""
	if name != "" {
		tag = fmt.Sprintf("name:%q", name)
	}
	if optional {
		if tag != "" {
			tag += " "
		}
		tag += `optional:"true"`
	}
	in := reflect.StructOf([]reflect.StructField{
		{Name: "In", Type: reflect.TypeFor[dig.In](), Anonymous: true},
		{Name: "V", Type: t, Tag: reflect.StructTag(tag)},
	})
	var out reflect.Value
	fn := reflect.MakeFunc(reflect.FuncOf([]reflect.Type{in}, nil, false), func(args []reflect.Value) []reflect.Value {
		out = args[0].Field(1)
		return nil
	})
	if err := c.scope.Invoke(fn.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return out, nil
}
