package scope

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.uber.org/dig"
)

// slot is the token a request decorator is provided as in its context's dig
// scope, under the decorator's name. Resolving it from a route's scope is
// how dig itself decides whether the decorator is visible there; the value
// tells the route which request slot holds it.
type slot struct{ index int }

// DeclareRequest declares a request decorator called name, holding values
// of type valueType, in c, on behalf of the wrapped plugin plugin ("" for
// none). It records the declaration and provides the decorator's slot token
// in c's dig scope, so dig and the registry agree on where it is visible.
// A name already visible from c is refused with a *DuplicateError.
func (c *Context) DeclareRequest(name string, valueType reflect.Type, plugin string) (*Decl, error) {
	d, err := c.declare(Decl{Key: Key{Kind: Request, Name: name}, ValueType: valueType, Plugin: plugin})
	if err != nil {
		return nil, err
	}
	token := slot{index: d.Slot}
	if err := c.scope.Provide(func() slot { return token }, dig.Name(name)); err != nil {
		return nil, err
	}
	return d, nil
}

// Provide provides a service in c on behalf of the wrapped plugin plugin
// ("" for none): service is a value, shared as is, or a dig constructor
// whose results become services, each under name when name is not "". It
// provides service in c's dig scope and records every service it yields,
// so dig and the registry agree on where each is visible. A service c
// itself already provides is refused with a *DuplicateError; an error from
// dig is returned as dig gives it.
//
// Each interface in as also provides the service as that interface (the
// same value: dig builds it once), in addition to its own type, unlike
// dig.As, which hides the own type. It needs a service of a single type
// that implements every interface.
func (c *Context) Provide(service any, name string, as []reflect.Type, plugin string) error {
	if service == nil {
		return errors.New("nil service")
	}
	ctor := service
	t := reflect.TypeOf(service)
	var keys []Key
	if t.Kind() == reflect.Func {
		for i := range t.NumOut() {
			if out := t.Out(i); out != typeError {
				keys = append(keys, serviceKeys(out, name)...)
			}
		}
	} else {
		v := reflect.ValueOf(service)
		ctor = reflect.MakeFunc(reflect.FuncOf(nil, []reflect.Type{t}, false),
			func([]reflect.Value) []reflect.Value { return []reflect.Value{v} }).Interface()
		keys = serviceKeys(t, name)
	}
	var opts []dig.ProvideOption
	if name != "" {
		opts = append(opts, dig.Name(name))
	}
	if len(as) > 0 {
		if len(keys) != 1 || keys[0].Group != "" || dig.IsOut(keys[0].Type) {
			return errors.New("only a service of a single type can be provided as an interface")
		}
		own := keys[0].Type
		for _, it := range as {
			if it.Kind() != reflect.Interface || !own.Implements(it) {
				return fmt.Errorf("%v cannot be provided as %v: %w", own, it, errNotInterface(own, it))
			}
			keys = append(keys, Key{Kind: Service, Type: it, Name: name})
		}
	}
	for _, k := range keys {
		if k.Group != "" {
			continue // a group takes values from many constructors
		}
		if prev := c.Lookup(k); prev != nil && prev.Context == c {
			return &DuplicateError{Key: k, In: c, Prev: prev}
		}
	}
	if err := c.scope.Provide(ctor, opts...); err != nil {
		return err
	}
	for _, it := range as {
		if err := c.scope.Provide(converter(keys[0].Type, it, name), opts...); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if _, err := c.declare(Decl{Key: k, Plugin: plugin}); err != nil {
			return err
		}
	}
	return nil
}

// converter is a dig constructor that provides the value of type from
// (under name, if any) as the interface to.
func converter(from, to reflect.Type, name string) any {
	param := from
	if name != "" {
		param = reflect.StructOf([]reflect.StructField{
			{Name: "In", Type: reflect.TypeFor[dig.In](), Anonymous: true},
			{Name: "V", Type: from, Tag: reflect.StructTag(fmt.Sprintf("name:%q", name))},
		})
	}
	return reflect.MakeFunc(reflect.FuncOf([]reflect.Type{param}, []reflect.Type{to}, false),
		func(in []reflect.Value) []reflect.Value {
			v := in[0]
			if name != "" {
				v = v.Field(1)
			}
			out := reflect.New(to).Elem()
			out.Set(v)
			return []reflect.Value{out}
		}).Interface()
}

var (
	typeError = reflect.TypeFor[error]()
	typeOut   = reflect.TypeFor[dig.Out]()
)

// serviceKeys are the services a constructor result of type t provides:
// t itself (under name, if any), or, for a dig.Out result struct, each of
// its fields — by type, by name, or into a value group — as dig sees them.
func serviceKeys(t reflect.Type, name string) []Key {
	if !dig.IsOut(t) || t.Kind() != reflect.Struct {
		return []Key{{Kind: Service, Name: name, Type: t}}
	}
	var keys []Key
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Anonymous && f.Type == typeOut, !f.IsExported():
			continue // dig refuses unexported fields itself
		case dig.IsOut(f.Type):
			keys = append(keys, serviceKeys(f.Type, "")...)
		case f.Tag.Get("group") != "":
			group, opts, _ := strings.Cut(f.Tag.Get("group"), ",")
			ft := f.Type
			if opts == "flatten" && ft.Kind() == reflect.Slice {
				ft = ft.Elem() // a flattened slice adds each element
			}
			keys = append(keys, Key{Kind: Service, Type: ft, Group: group})
		default:
			keys = append(keys, Key{Kind: Service, Type: f.Type, Name: f.Tag.Get("name")})
		}
	}
	return keys
}

// ResolveSlot asks dig, from c, for the request slot of the request
// decorator called name: it fails where dig cannot see the decorator.
func (c *Context) ResolveSlot(name string) (int, error) {
	v, err := c.Resolve(reflect.TypeFor[slot](), name, false)
	if err != nil {
		return 0, err
	}
	return v.Interface().(slot).index, nil
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
