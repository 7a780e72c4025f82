package app

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.uber.org/dig"

	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// ProvideRequest declares a request-scoped value in this context: constructor
// builds it at most once per request, the first time a handler, a hook, an
// In struct field or another request-scoped constructor of that request
// needs it; a request that needs none never builds it. Consumers take it
// as a parameter or an untagged In struct field of its type (a name:"x"
// field with Named("x")), exactly as a service; when both are visible, the
// request value wins.
//
// constructor is a [Constructor] made by [Provider], which Burrow calls
// directly, or any function of the shapes func(params...) T,
// func(params...) (T, error) or func(params...) (T, func(failed bool)
// error, error), which it calls through reflect.Value.Call (about 400 ns
// and a few allocations per value built). Its parameters are resolved at
// Ready from this context, as a handler's are: services, request
// decorators (In struct fields with a name tag), other request values,
// *httpx.Request, context.Context and *zap.Logger. An error it returns is
// the error of the hook or handler that needed the value.
//
// The cleanup, when the constructor returns one, runs once the handler has
// finished (or the hook that ended the request has), last built first.
// failed is true when the handler or a hook returned an error or panicked,
// or the status is 400 or more. When Burrow sends the reply (the handler
// returned a value, nothing or an error), cleanups run right before it is
// written: after the send hooks and the encoding, so a reply they fail is
// a failed request, and before the write, so a failing cleanup — a commit
// that does not go through — becomes the error the client is answered
// with. After a handler that sent its reply itself, they run after it and
// a failure is logged.
//
// Visibility is encapsulated as for decorators and checked at Ready: a
// route that needs a value no visible context provides, or constructors
// that need each other, are start-up errors. As[I] provides the value as
// interface I too.
func (s *Server) ProvideRequest(constructor any, opts ...DecorateOption) error {
	return s.mutate(fmt.Sprintf("request value %T", constructor), func() error {
		var o decorateOptions
		for _, opt := range opts {
			opt(&o)
		}
		var (
			fn   reflect.Value
			ctor Constructor
			t    reflect.Type
			err  error
		)
		if c, ok := constructor.(Constructor); ok {
			ctor = c
			t, err = c.valueType()
		} else {
			fn = reflect.ValueOf(constructor)
			t, err = constructorType(fn)
		}
		if err != nil {
			return errkind.New(ErrInvalidDecorator, "invalid request-scoped constructor in %s: %w", s.Path(), err)
		}
		if o.name != "" && s.n.ctx.Lookup(scope.Key{Kind: scope.Request, Name: o.name}) != nil {
			return errkind.New(ErrInvalidDecorator, "invalid request-scoped constructor in %s: the name %q is a visible request decorator's",
				s.Path(), o.name)
		}
		decls, err := s.n.ctx.DeclareValue(t, o.as, o.name, s.from)
		if err != nil {
			if errors.Is(err, scope.ErrDuplicate) {
				return s.registeredTwice(err)
			}
			return errkind.New(ErrInvalidDecorator, "invalid request-scoped constructor in %s: %w", s.Path(), err)
		}
		s.a.providers = append(s.a.providers, &provider{decl: decls[0], fn: fn, ctor: ctor, single: len(o.as) == 0})
		return nil
	})
}

var typeCleanup = reflect.TypeFor[func(failed bool) error]()

// constructorType checks the shape of a request-scoped constructor and
// returns the type of the value it builds.
func constructorType(fn reflect.Value) (reflect.Type, error) {
	if !fn.IsValid() {
		return nil, errors.New("nil")
	}
	ft := fn.Type()
	if ft.Kind() != reflect.Func {
		return nil, fmt.Errorf("%v is not a function", ft)
	}
	if fn.IsNil() {
		return nil, errors.New("nil function")
	}
	if ft.IsVariadic() {
		return nil, fmt.Errorf("%v is variadic", ft)
	}
	ok := false
	switch ft.NumOut() {
	case 1:
		ok = ft.Out(0) != typeError
	case 2:
		ok = ft.Out(0) != typeError && ft.Out(1) == typeError
	case 3:
		ok = ft.Out(0) != typeError && ft.Out(1) == typeCleanup && ft.Out(2) == typeError
	}
	if !ok {
		return nil, fmt.Errorf("%v must return T, (T, error) or (T, func(failed bool) error, error)", ft)
	}
	return ft.Out(0), nil
}

// Constructor is a request-scoped constructor that Burrow calls
// directly, made by [Provider]; [Server.ProvideRequest] takes it.
type Constructor interface {
	// valueType checks the constructor and returns the type of its value.
	valueType() (reflect.Type, error)
	// target is the wrapped function, whose parameter types say which
	// request values it needs.
	target() any
	// direct plans the constructor's input from c and returns what
	// builds the value of a request and, when the value is kept in a
	// cell, what gives the cell back (see cell). Only a value that is
	// taken as its own type alone may be kept in a cell.
	direct(c *scope.Context, opt planOptions, single bool) (builder, func(any), error)
}

// builder builds a request value for x's request: the value (or its
// cell), its cleanup (or nil) and the constructor's error.
type builder func(x *exchange) (any, func(failed bool) error, error)

// cell holds a request value of a type that an interface cannot hold
// without a copy on the heap (a struct, a string, a slice, an integer…):
// the slot holds the cell, a pointer, and the cell goes back to its
// provider's pool once the request is answered. Consumers copy the value
// out (see slotValue); nothing keeps the cell.
type cell[T any] struct{ v T }

// valueCell is what every cell is.
type valueCell interface {
	elem() reflect.Value
}

func (c *cell[T]) elem() reflect.Value { return reflect.ValueOf(&c.v).Elem() }

// boxFree reports whether an interface holds a value of type t without
// a copy on the heap: pointer-shaped and empty types. (Small integers are
// not copied either, but only some of their values.)
func boxFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Interface:
		return true
	}
	return t.Size() == 0
}

// slotValue is the value of a request value or decorator slot d, taken
// out of its cell if it is in one.
func slotValue(d any) reflect.Value {
	if c, ok := d.(valueCell); ok {
		return c.elem()
	}
	return reflect.ValueOf(d)
}

// Provider makes a request-scoped constructor of fn that Burrow calls
// directly, with no reflection per request, for ProvideRequest. In is a
// struct embedding [In], filled as a typed route's is (services, request
// decorators by name tag, other request values, *httpx.Request,
// *zap.Logger), or struct{} for none; ctx is the request's context. fn
// returns the value, its cleanup (nil for none) and an error.
//
//	type txIn struct {
//		app.In
//		DB *sql.DB
//	}
//	s.ProvideRequest(app.Provider(func(ctx context.Context, in txIn) (*sql.Tx, func(failed bool) error, error) {
//		tx, err := in.DB.BeginTx(ctx, nil)
//		if err != nil {
//			return nil, nil, err
//		}
//		return tx, func(failed bool) error {
//			if failed {
//				return tx.Rollback()
//			}
//			return tx.Commit()
//		}, nil
//	}))
func Provider[In, T any](fn func(ctx context.Context, in In) (T, func(failed bool) error, error)) Constructor {
	return providerFunc[In, T](fn)
}

type providerFunc[In, T any] func(context.Context, In) (T, func(bool) error, error)

func (f providerFunc[In, T]) target() any {
	return (func(context.Context, In) (T, func(bool) error, error))(f)
}

func (f providerFunc[In, T]) valueType() (reflect.Type, error) {
	t, in := reflect.TypeFor[T](), reflect.TypeFor[In]()
	switch {
	case f == nil:
		return nil, errors.New("nil function")
	case t == typeError:
		return nil, errors.New("a request value cannot be an error")
	case in != typeNoInput && (in.Kind() != reflect.Struct || !dig.IsIn(in)):
		return nil, fmt.Errorf("%v cannot be a request value's input: embed app.In in a struct, or use struct{} for no input", in)
	}
	return t, nil
}

func (f providerFunc[In, T]) direct(c *scope.Context, opt planOptions, single bool) (builder, func(any), error) {
	get := func(*exchange, error) In { var zero In; return zero }
	if reflect.TypeFor[In]() != typeNoInput {
		var err error
		if get, err = planDirect[In](c, opt); err != nil {
			return nil, nil, err
		}
	}
	if !single || boxFree(reflect.TypeFor[T]()) {
		return func(x *exchange) (any, func(bool) error, error) {
			v, cleanup, err := f(x.Request().Context(), get(x, nil))
			if err != nil {
				return nil, nil, err
			}
			return v, cleanup, nil
		}, nil, nil
	}
	pool := &sync.Pool{New: func() any { return new(cell[T]) }}
	build := func(x *exchange) (any, func(bool) error, error) {
		v, cleanup, err := f(x.Request().Context(), get(x, nil))
		if err != nil {
			return nil, nil, err
		}
		c, _ := pool.Get().(*cell[T])
		c.v = v
		return c, cleanup, nil
	}
	release := func(d any) {
		if c, ok := d.(*cell[T]); ok {
			var zero T
			c.v = zero
			pool.Put(c)
		}
	}
	return build, release, nil
}

// provider is a request-scoped constructor, planned at Ready.
type provider struct {
	decl  *scope.Decl   // the value's own type's declaration
	fn    reflect.Value // a constructor called by reflection; or
	ctor  Constructor   // one called directly
	args  []argPlan     // fn's
	build builder       // ctor's
	// release gives back the cell of a value built by build; nil when the
	// value is not kept in one. single: the value is provided as its own
	// type alone (no As), so a cell may hold it.
	release func(any)
	single  bool
	label   string      // name(), the Name of its steps
	order   []*provider // what building it takes, its dependencies first, itself last
	state   uint8       // planning: 0 not yet, 1 in progress, 2 done
}

// name is the value's type, and name if it has one, for PrintRoutes.
func (p *provider) name() string {
	if p.decl.Name != "" {
		return fmt.Sprintf("%v named %q", p.decl.ValueType, p.decl.Name)
	}
	return p.decl.ValueType.String()
}

func (p *provider) String() string {
	return fmt.Sprintf("%v (provided in %s)", p.decl.Key, p.decl.Where())
}

// planProviders plans every request-scoped constructor of the tree and
// orders each one's dependencies; a cycle among them is an error naming
// it.
func (a *instance) planProviders() error {
	for _, p := range a.providers {
		a.types[p.decl.Slot] = p.decl.ValueType
	}
	for _, p := range a.providers {
		if err := a.planProvider(p, nil); err != nil {
			return err
		}
	}
	return nil
}

func (a *instance) planProvider(p *provider, path []*provider) error {
	switch p.state {
	case 2:
		return nil
	case 1:
		cycle := append(path[slices.Index(path, p):], p)
		names := make([]string, len(cycle))
		for i, q := range cycle {
			names[i] = q.String()
		}
		return errkind.New(ErrInvalidDecorator, "request-scoped constructors need each other: %s", strings.Join(names, " needs "))
	}
	p.state = 1
	p.label = p.name()
	c := p.decl.Context
	opt := planOptions{inputPhase: "in a request-scoped constructor, which may run before the body is parsed", noReply: true}
	var ft reflect.Type
	if p.ctor != nil {
		ft = reflect.TypeOf(p.ctor.target())
		var err error
		if p.build, p.release, err = p.ctor.direct(c, opt, p.single); err != nil {
			return fmt.Errorf("request value %v: %w", p, err)
		}
	} else {
		ft = p.fn.Type()
		p.args = make([]argPlan, ft.NumIn())
	}
	for i := range p.args {
		t := ft.In(i)
		var err error
		switch t {
		case typeReply, typeError:
			err = errkind.New(ErrInvalidDecorator, "cannot take %v", t)
		default:
			p.args[i], err = planArg(t, c, opt)
		}
		if err != nil {
			return fmt.Errorf("request value %v: %w", p, err)
		}
	}
	for _, dep := range a.needs(ft, c) {
		if err := a.planProvider(dep, append(path, p)); err != nil {
			return err
		}
		p.order = appendNew(p.order, dep.order...)
	}
	p.order = append(p.order, p)
	p.state = 2
	return nil
}

// appendNew appends each of add to list that list does not hold yet.
func appendNew(list []*provider, add ...*provider) []*provider {
	for _, p := range add {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

// needs lists the request-scoped constructors whose values a function of
// type ft takes, planned from c: parameters and In struct fields the
// plan fills from a request value (see planRequestValue).
func (a *instance) needs(ft reflect.Type, c *scope.Context) []*provider {
	var out []*provider
	add := func(t reflect.Type, name string) {
		if name != "" && c.Lookup(scope.Key{Kind: scope.Request, Name: name}) != nil {
			return // a request decorator's
		}
		if d := c.Lookup(scope.Key{Kind: scope.Value, Type: t, Name: name}); d != nil {
			out = appendNew(out, a.providerOf(d))
		}
	}
	for i := range ft.NumIn() {
		t := ft.In(i)
		if t.Kind() != reflect.Struct || !dig.IsIn(t) {
			add(t, "")
			continue
		}
		for f := range flatFields(t) {
			if f.IsExported() && !inputTagged(f.Tag) {
				add(f.Type, f.Tag.Get("name"))
			}
		}
	}
	return out
}

func (a *instance) providerOf(d *scope.Decl) *provider {
	for _, p := range a.providers {
		if p.decl.Slot == d.Slot {
			return p
		}
	}
	panic("request value without a constructor") // DeclareValue and ProvideRequest go together
}

// planRequestValue plans a parameter or In struct field of type t (named
// name, for a field tagged name:"x") that a request value fills. ok is
// false when no request value is visible from c as t, and no context
// provides one either (the caller then plans a service); a request value
// provided only elsewhere in the tree is an error saying where, unless
// optional. A field named as a visible request decorator is the
// decorator's.
func planRequestValue(t reflect.Type, name string, c *scope.Context, optional, beside bool) (a argPlan, ok bool, err error) {
	if name != "" && c.Lookup(scope.Key{Kind: scope.Request, Name: name}) != nil {
		return argPlan{}, false, nil // a request decorator's name wins
	}
	k := scope.Key{Kind: scope.Value, Type: t, Name: name}
	d := c.Lookup(k)
	if d == nil {
		if optional || len(c.Providers(k)) == 0 || c.Lookup(scope.Key{Kind: scope.Service, Type: t, Name: name}) != nil {
			return argPlan{}, false, nil
		}
		_, err := c.Require(k)
		return argPlan{}, false, fmt.Errorf("needs %w", err)
	}
	if beside {
		return argPlan{}, false, errBeside(d.Key.String())
	}
	return argPlan{kind: argSlot, slot: d.Slot, value: reflect.Zero(t)}, true, nil
}

// planFunc plans fn, a handler, hook or error handler of rt, like planHandler,
// runs it as the step st of rt's observers (see stepped), and makes it
// build the request values it needs before it runs: each construction
// a step of its own when rt has steps.
func (rt *route) planFunc(fn any, opt planOptions, st Step) (invoker, error) {
	inv, err := planHandler(fn, rt.node.ctx, opt)
	if err != nil {
		return nil, err
	}
	inv = stepped(inv, rt.steps, st)
	if h, ok := fn.(Handler); ok {
		fn = h.target()
	}
	ft := reflect.TypeOf(fn)
	if ft == nil || ft.Kind() != reflect.Func {
		return inv, nil
	}
	var order []*provider
	for _, p := range rt.a.needs(ft, rt.node.ctx) {
		order = appendNew(order, p.order...)
	}
	if len(order) == 0 {
		return inv, nil // the common case: nothing to build, nothing to pay
	}
	rt.scoped = true
	rt.values = appendNew(rt.values, order...)
	if steps := rt.steps; steps != nil {
		return func(x *exchange, herr error) (any, error) {
			for _, p := range order {
				if !x.isBuilt(p.decl.Slot) {
					if err := p.runStepped(x, steps); err != nil {
						return nil, err
					}
				}
			}
			return inv(x, herr)
		}, nil
	}
	return func(x *exchange, herr error) (any, error) {
		for _, p := range order {
			if !x.isBuilt(p.decl.Slot) {
				if err := p.run(x); err != nil {
					return nil, err
				}
			}
		}
		return inv(x, herr)
	}, nil
}

// requestArg is the value of a parameter that handlers and request-value
// constructors take alike: the request, its context, its logger, a value
// fixed at start-up or a request value. It is false for the other kinds,
// which the caller supplies.
func requestArg(x *exchange, a *argPlan) (reflect.Value, bool) {
	switch a.kind {
	case argRequest:
		return reflect.ValueOf(x.Request()), true
	case argContext:
		return reflect.ValueOf(x.Request().Context()), true
	case argLogger:
		return reflect.ValueOf(x.Request().Log()), true
	case argValue:
		return a.value, true
	case argSlot:
		return slotArg(x, a), true
	}
	return reflect.Value{}, false
}

// HasDecorator reports whether a request decorator called name is visible
// from this context, so a plugin can adapt to what its parent offers.
func (s *Server) HasDecorator(name string) bool {
	return s.has(scope.Key{Kind: scope.Request, Name: name})
}

// HasService reports whether a service of type T (under name, if given)
// is visible from s's context.
func HasService[T any](s *Server, name ...string) bool {
	return s.has(scope.Key{Kind: scope.Service, Type: reflect.TypeFor[T](), Name: firstName(name)})
}

// HasRequestValue reports whether a request value of type T (under name,
// if given) is visible from s's context.
func HasRequestValue[T any](s *Server, name ...string) bool {
	return s.has(scope.Key{Kind: scope.Value, Type: reflect.TypeFor[T](), Name: firstName(name)})
}

func firstName(name []string) string {
	if len(name) == 0 {
		return ""
	}
	return name[0]
}

func (s *Server) has(k scope.Key) bool {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.n.ctx.Lookup(k) != nil
}
