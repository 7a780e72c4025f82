package app

import (
	"reflect"
	"sync"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// Handler is a handler or hook that Burrow calls directly, without
// reflect.Value.Call, made by [Typed] or [TypedValue]. Anywhere a
// handler or hook is accepted, a Handler is too.
//
// Deprecated: write a route as a typed route ([Get], [Post], … [Handle]),
// which Burrow calls directly; a stream takes the *httpx.Reply as a field
// of its input struct. Hooks and error handlers are plain functions.
type Handler interface {
	// direct returns the invoker of the wrapped function.
	direct(c *scope.Context, opt planOptions) (invoker, error)
	// target is the wrapped function, for names in errors and printing.
	target() any
}

// Typed makes a Handler of fn, whose D is resolved at start-up as any
// handler parameter is (an In struct, Body, Query or Params, a service,
// or a built-in such as *httpx.Request).
//
// Deprecated: use a typed route, whose input struct may take the
// *httpx.Reply (a field of type *httpx.Reply) for a stream:
//
//	app.Get(s, "/three", func(_ context.Context, in struct {
//		app.In
//		Reply *httpx.Reply
//	}) (struct{}, error) {
//		return struct{}{}, in.Reply.Send("three")
//	})
//
// Hooks and error handlers take the plain function: s.SetErrorHandler(fn).
func Typed[D any](fn func(*httpx.Reply, D) error) Handler {
	return typed[D, struct{}]{send: fn}
}

// TypedValue makes a Handler of fn, which returns the value to send.
//
// Deprecated: use a typed route, which returns the value to send too:
//
//	app.Post(s, "/echo", func(_ context.Context, in struct {
//		app.In
//		Msg msg `body:""`
//	}) (msg, error) {
//		return in.Msg, nil
//	})
func TypedValue[D, R any](fn func(D) (R, error)) Handler {
	return typed[D, R]{value: fn}
}

// typed holds one of the two shapes; the other field is nil.
type typed[D, R any] struct {
	send  func(*httpx.Reply, D) error
	value func(D) (R, error)
}

func (t typed[D, R]) target() any {
	if t.send != nil {
		return t.send
	}
	return t.value
}

func (t typed[D, R]) direct(c *scope.Context, opt planOptions) (invoker, error) {
	if t.send == nil && t.value == nil {
		return planHandler(nil, c, opt) // the nil-handler error
	}
	get, err := planDirect[D](c, opt)
	if err != nil {
		return nil, err
	}
	if t.send != nil {
		if opt.beside {
			return nil, errBeside("*httpx.Reply")
		}
		send := t.send
		return func(x *exchange, herr error) (any, error) {
			return nil, send(x.Reply(), get(x, herr))
		}, nil
	}
	value := t.value
	return func(x *exchange, herr error) (any, error) {
		v, err := value(get(x, herr))
		if err != nil {
			return nil, err
		}
		return v, nil
	}, nil
}

// planDirect plans D like any parameter and returns what builds it per
// call. D is filled in a pooled *D, so reflect works on addressable
// memory that is not allocated per call, then copied out.
func planDirect[D any](c *scope.Context, opt planOptions) (func(*exchange, error) D, error) {
	a, err := planArg(reflect.TypeFor[D](), c, opt)
	if err != nil {
		return nil, err
	}
	switch a.kind {
	// Built-ins are pointers or interfaces: a type assertion, no copy.
	case argRequest:
		return func(x *exchange, _ error) D { d, _ := any(x.Request()).(D); return d }, nil
	case argReply:
		return func(x *exchange, _ error) D { d, _ := any(x.Reply()).(D); return d }, nil
	case argContext:
		return func(x *exchange, _ error) D { d, _ := x.Request().Context().(D); return d }, nil
	case argLogger:
		return func(x *exchange, _ error) D { d, _ := any(x.Request().Log()).(D); return d }, nil
	case argError:
		return func(_ *exchange, herr error) D { d, _ := herr.(D); return d }, nil
	case argValue:
		var d D
		reflect.ValueOf(&d).Elem().Set(a.value)
		return func(*exchange, error) D { return d }, nil
	case argSlot:
		return func(x *exchange, _ error) D {
			switch v := x.Slot(a.slot).(type) {
			case *cell[D]: // a request value kept in a cell
				return v.v
			case D:
				return v
			}
			var zero D
			return zero
		}, nil
	}
	// An In struct or an input wrapper: filled through its plan.
	fill := func(dst reflect.Value, x *exchange) {
		if v := x.Input()[a.input]; v != nil {
			dst.Field(0).Set(reflect.ValueOf(v).Elem())
		}
	}
	if a.kind == argStruct {
		fill = a.st.fillInto
	}
	pool := sync.Pool{New: func() any { return new(D) }}
	return func(x *exchange, _ error) D {
		p := pool.Get().(*D)
		fill(reflect.ValueOf(p).Elem(), x)
		d := *p
		var zero D
		*p = zero
		pool.Put(p)
		return d
	}, nil
}
