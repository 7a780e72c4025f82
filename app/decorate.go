package app

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"time"

	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// DecorateRequest declares a request decorator called name in this context:
// every request to a route of this context or a descendant starts with
// value, which its hooks may replace for that request only
// (Request.SetDecorator). Handlers receive it through an In struct field
// tagged name:"<name>" whose type value's type is assignable to.
//
// Every request starts from the same value, so it must share nothing: a
// non-nil pointer, map, slice, channel or function, in value or anywhere
// inside it, is refused, since a hook filling it would write into every
// request at once. Declare such a decorator with a typed nil, as
// (*User)(nil), and set a fresh value per request in a hook.
//
// Declaring a name that is already visible from this context — declared
// here or in an ancestor — is an error wrapping scope.ErrDuplicate;
// siblings may reuse a name. Fastify refuses a child's redeclaration of a
// value decorator too, but lets a child override a function one; Burrow
// refuses both, so a name holds one value of one type throughout a
// branch (a hook replaces it for one request with SetDecorator).
func (s *Server) DecorateRequest(name string, value any) error {
	return s.mutate(fmt.Sprintf("request decorator %q", name), func() error {
		if name == "" {
			return errkind.New(ErrInvalidDecorator, "invalid request decorator in %s: empty name", s.Path())
		}
		if value == nil {
			return errkind.New(ErrInvalidDecorator, "invalid request decorator %q in %s: it has no value, so no type; use a typed nil",
				name, s.Path())
		}
		if err := sharesNothing(name, value); err != nil {
			return errkind.New(ErrInvalidDecorator, "invalid request decorator %q in %s: it %w", name, s.Path(), err)
		}
		d, err := s.n.ctx.DeclareRequest(name, reflect.TypeOf(value), s.from)
		if err != nil {
			return s.registeredTwice(err)
		}
		s.a.initial = append(s.a.initial, slotInit{decl: d, value: value})
		return nil
	})
}

// registeredTwice turns err, a declaration refused because an ancestor
// declared the same thing, into what the user did when both came from
// the same wrapped plugin: registered it in a context and again below
// it. The names the plugin declares are its own business, never written
// by the user, so the error names the plugin and the two contexts.
func (s *Server) registeredTwice(err error) error {
	var dup *scope.DuplicateError
	if s.from == "" || !errors.As(err, &dup) || dup.Prev.Plugin != s.from || dup.Prev.Context == dup.In {
		return err
	}
	return &PluginError{Plugin: s.from, Context: s.Path(), Err: errkind.New(ErrDuplicatePlugin,
		"is already registered in %s, an ancestor, and applies to this context already: "+
			"a plugin that declares request decorators is registered once on a branch of contexts", dup.Prev.Context.Path())}
}

// sharesNothing explains how value, a request decorator's starting
// value, would be shared between requests, or returns nil.
func sharesNothing(name string, value any) error {
	v := reflect.ValueOf(value)
	at, kind := sharedReference(v, "")
	if kind == "" {
		return nil
	}
	t := v.Type()
	what := fmt.Sprintf("its %v value", t)
	if at != "" {
		what += fmt.Sprintf(" (at %s, %s)", at, kind)
	}
	typedNil := reflect.PointerTo(t)
	if at == "" {
		typedNil = t
	}
	return fmt.Errorf("would share %s with every request; declare it with a typed nil, DecorateRequest(%q, (%v)(nil)), "+
		"and set a fresh value per request with req.SetDecorator in a hook (or provide a service with Decorate to share one on purpose)",
		what, name, typedNil)
}

// immutableTypes hold a pointer only to data nobody changes: the standard
// library documents them as values.
var immutableTypes = map[reflect.Type]bool{
	reflect.TypeFor[time.Time]():      true,
	reflect.TypeFor[netip.Addr]():     true,
	reflect.TypeFor[netip.AddrPort](): true,
	reflect.TypeFor[netip.Prefix]():   true,
}

// sharedReference finds a reference in v that copies of v would share —
// a non-nil pointer, map, slice, channel, function or unsafe pointer, in
// v itself, a field, an element or an interface's value — and returns
// where (".Roles", "[1]", "" for v) and what it is.
func sharedReference(v reflect.Value, at string) (where, kind string) {
	if immutableTypes[v.Type()] {
		return "", ""
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if v.IsNil() {
			return "", ""
		}
		return at, referenceKinds[v.Kind()]
	case reflect.Interface:
		if v.IsNil() {
			return "", ""
		}
		return sharedReference(v.Elem(), at)
	case reflect.Struct:
		for i := range v.NumField() {
			if where, kind := sharedReference(v.Field(i), at+"."+v.Type().Field(i).Name); kind != "" {
				return where, kind
			}
		}
	case reflect.Array:
		if !mayHoldReference(v.Type().Elem()) {
			return "", "" // a large array of numbers is not walked
		}
		for i := range v.Len() {
			if where, kind := sharedReference(v.Index(i), at+"["+strconv.Itoa(i)+"]"); kind != "" {
				return where, kind
			}
		}
	}
	return "", ""
}

var referenceKinds = map[reflect.Kind]string{
	reflect.Pointer: "a pointer", reflect.Map: "a map", reflect.Slice: "a slice", reflect.Chan: "a channel",
	reflect.Func: "a function", reflect.UnsafePointer: "an unsafe pointer",
}

// mayHoldReference reports whether a value of type t can hold a
// reference. Types recur only through references, so this ends.
func mayHoldReference(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldReference(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Array:
		return mayHoldReference(t.Elem())
	case reflect.Interface:
		return true
	}
	return referenceKinds[t.Kind()] != ""
}

// DecorateOption configures Decorate.
type DecorateOption func(*decorateOptions)

type decorateOptions struct {
	name string
	as   []reflect.Type // As's interfaces
}

// Named provides the service under a name, for In struct fields tagged
// name:"<name>".
func Named(name string) DecorateOption { return func(o *decorateOptions) { o.name = name } }

// Decorate provides a service in this context: a value (shared as is) or a
// dig constructor function, whose parameters are resolved from this
// context and whose results become services — a dig.Out result struct
// provides each of its fields, by type, by name or into a value group.
// Handlers receive services as plain parameters of their type, or as In
// struct fields. A child may shadow a service an ancestor provides; the
// same service twice in one context is an error (a value group takes any
// number of values).
func (s *Server) Decorate(service any, opts ...DecorateOption) error {
	return s.mutate(fmt.Sprintf("service %T", service), func() error {
		var o decorateOptions
		for _, opt := range opts {
			opt(&o)
		}
		if service == nil {
			return errkind.New(ErrInvalidDecorator, "invalid service in %s: nil", s.Path())
		}
		if err := s.n.ctx.Provide(service, o.name, o.as, s.from); err != nil {
			if errors.Is(err, scope.ErrDuplicate) {
				return err
			}
			return errkind.New(ErrInvalidDecorator, "invalid service in %s: %w", s.Path(), err)
		}
		return nil
	})
}

// slotInit is a request decorator's starting value.
type slotInit struct {
	decl  *scope.Decl
	value any
}

// As provides a service (Decorate) or a request value (ProvideRequest) as
// the interface I too, in addition to its own type: consumers may depend
// on I. The value's type must implement I, checked when it is provided.
func As[I any]() DecorateOption {
	return func(o *decorateOptions) { o.as = append(o.as, reflect.TypeFor[I]()) }
}
