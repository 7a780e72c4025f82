package app

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"go.uber.org/dig"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// In marks a parameter struct whose fields Burrow fills one by one, as
// dig.In does: a field tagged name:"x" receives the request decorator (or
// the named service) x; an untagged field receives the service of its type;
// optional:"true" makes an invisible value the zero value instead of a
// start-up error.
//
//	type deps struct {
//		app.In
//		Answer int    `name:"answer"`
//		Foo    string `name:"foo" optional:"true"`
//		DB     *sql.DB
//	}
type In = dig.In

// invoker runs a compiled handler, hook or error handler on the exchange
// of a request, which gives it the Request, the Reply (nil for hooks that
// run beside the handler), the decorator slots and the decoded input. err
// is the error being handled (error handlers and onError hooks only). It
// returns the value to send, if the function returned one, and the
// function's error.
type invoker func(x *httpx.Exchange, err error) (any, error)

var (
	typeRequest = reflect.TypeFor[*httpx.Request]()
	typeReply   = reflect.TypeFor[*httpx.Reply]()
	typeContext = reflect.TypeFor[context.Context]()
	typeLogger  = reflect.TypeFor[*zap.Logger]()
	typeError   = reflect.TypeFor[error]()
)

type argKind uint8

const (
	argRequest argKind = iota
	argReply
	argContext
	argLogger
	argError
	argValue  // a service, resolved once at start-up
	argStruct // an In struct
	argInput  // Body, Query or Params
	argSlot   // a request value, read from its slot
)

type argPlan struct {
	kind    argKind
	value   reflect.Value
	st      *structPlan
	input   inputKind
	wrapper reflect.Type // Body[T], Query[T] or Params[T]
	slot    int          // argSlot's; value is then the zero value
}

// structPlan fills an In struct. Its values come from a pool, so filling
// one per request does not allocate.
type structPlan struct {
	typ    reflect.Type
	fields []fieldPlan
	pool   sync.Pool
}

type fieldPlan struct {
	index int
	slot  int           // request decorator slot, or -1
	value reflect.Value // service value when slot is -1
}

// planOptions says which extra built-ins a function may take.
type planOptions struct {
	allowError bool        // error handlers and onError hooks get the error
	inputs     *inputNeeds // where Body, Query and Params may be taken: what they ask
	inputPhase string      // where they may not: why, for the message
	beside     bool        // onTimeout and onRequestAbort hooks: no reply, no decorators
}

// errBeside refuses, at Ready, what a hook running beside the handler
// cannot safely have: the reply (the framework answers a time-out, an
// aborted client hears nothing, and a second writer would mix its reply
// with the handler's) or a request decorator (the handler's hooks may be
// changing it).
func errBeside(what string) error {
	return errkind.New(ErrInvalidHandler, "%s cannot be taken in onTimeout and onRequestAbort hooks, "+
		"which run beside the handler on another goroutine", what)
}

// planHandler builds the invoker for fn, resolving every parameter through c.
// It is where reflection and dig run, once per route at start-up.
func planHandler(fn any, c *scope.Context, opt planOptions) (invoker, error) {
	switch f := fn.(type) {
	case nil:
		return nil, errkind.New(ErrInvalidHandler, "nil")
	case func(*httpx.Request, *httpx.Reply) error:
		if opt.beside {
			return nil, errBeside("*httpx.Reply")
		}
		return func(x *httpx.Exchange, _ error) (any, error) { return nil, f(x.Request(), x.Reply()) }, nil
	case func(*httpx.Request, *httpx.Reply):
		if opt.beside {
			return nil, errBeside("*httpx.Reply")
		}
		return func(x *httpx.Exchange, _ error) (any, error) { f(x.Request(), x.Reply()); return nil, nil }, nil
	case func(*httpx.Request) (any, error):
		return func(x *httpx.Exchange, _ error) (any, error) { return f(x.Request()) }, nil
	case Handler:
		return f.direct(c, opt)
	case http.Handler, func(http.ResponseWriter, *http.Request):
		// Only a route (and Mount) serves through one; a hook or an
		// error handler would write a second reply.
		return nil, errkind.New(ErrInvalidHandler, "%T is a standard http.Handler, which only a route or Mount may take; "+
			"to run one around routes, make it a middleware (Use)", fn)
	}
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	if ft.Kind() != reflect.Func {
		return nil, errkind.New(ErrInvalidHandler, "%v is not a function", ft)
	}
	if ft.IsVariadic() {
		return nil, errkind.New(ErrInvalidHandler, "%v is variadic", ft)
	}
	returnsValue := false
	switch ft.NumOut() {
	case 0:
	case 1:
		if ft.Out(0) != typeError {
			return nil, errkind.New(ErrInvalidHandler, "%v must return error or (T, error)", ft)
		}
	case 2:
		if ft.Out(1) != typeError {
			return nil, errkind.New(ErrInvalidHandler, "%v must return error or (T, error)", ft)
		}
		returnsValue = true
	default:
		return nil, errkind.New(ErrInvalidHandler, "%v returns too many values", ft)
	}
	args := make([]argPlan, ft.NumIn())
	for i := range args {
		a, err := planArg(ft.In(i), c, opt)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	argPool := sync.Pool{New: func() any { s := make([]reflect.Value, len(args)); return &s }}
	return func(x *httpx.Exchange, herr error) (any, error) {
		req := x.Request()
		bufp := argPool.Get().(*[]reflect.Value)
		in := *bufp
		var keep [4]any // In structs in flight; more than four is rare
		filled := keep[:0]
		for i := range args {
			a := &args[i]
			switch a.kind {
			case argRequest:
				in[i] = reflect.ValueOf(req)
			case argReply:
				in[i] = reflect.ValueOf(x.Reply())
			case argContext:
				in[i] = reflect.ValueOf(req.Context())
			case argLogger:
				in[i] = reflect.ValueOf(req.Log())
			case argError:
				if herr == nil {
					in[i] = reflect.Zero(typeError)
				} else {
					// A copy, so only error handlers pay for boxing it:
					// taking herr's own address would move it to the heap
					// on every call.
					e := herr
					in[i] = reflect.ValueOf(&e).Elem()
				}
			case argValue:
				in[i] = a.value
			case argInput:
				in[i] = inputValue(x, a)
			case argSlot:
				in[i] = slotArg(x, a)
			case argStruct:
				p := a.st.fill(x)
				filled = append(filled, p)
				in[i] = reflect.ValueOf(p).Elem()
			}
		}
		out := fv.Call(in)
		clear(in)
		argPool.Put(bufp)
		j := 0
		for i := range args {
			if args[i].kind == argStruct {
				args[i].st.release(filled[j])
				j++
			}
		}
		switch len(out) {
		case 1:
			err, _ := out[0].Interface().(error)
			return nil, err
		case 2:
			err, _ := out[1].Interface().(error)
			if returnsValue && err == nil {
				return out[0].Interface(), nil
			}
			return nil, err
		}
		return nil, nil
	}, nil
}

func planArg(t reflect.Type, c *scope.Context, opt planOptions) (argPlan, error) {
	switch t {
	case typeRequest:
		return argPlan{kind: argRequest}, nil
	case typeReply:
		if opt.beside {
			return argPlan{}, errBeside("*httpx.Reply")
		}
		return argPlan{kind: argReply}, nil
	case typeContext:
		return argPlan{kind: argContext}, nil
	case typeLogger:
		return argPlan{kind: argLogger}, nil
	case typeError:
		if opt.allowError {
			return argPlan{kind: argError}, nil
		}
	}
	if t.Kind() == reflect.Struct && t.Implements(typeInputParam) {
		return planInput(t, opt)
	}
	if t.Kind() == reflect.Pointer && dig.IsIn(t.Elem()) {
		return argPlan{}, errkind.New(ErrInvalidHandler, "%v: take an In struct by value", t)
	}
	if dig.IsIn(t) {
		if t.Kind() != reflect.Struct {
			return argPlan{}, errkind.New(ErrInvalidHandler, "%v: an In parameter must be a struct value", t)
		}
		st, err := planStruct(t, c, opt.beside)
		if err != nil {
			return argPlan{}, err
		}
		return argPlan{kind: argStruct, st: st}, nil
	}
	if a, ok, err := planRequestValue(t, "", c, false, opt.beside); ok || err != nil {
		return a, err
	}
	v, err := resolveService(c, t, "", false)
	if err != nil {
		return argPlan{}, err
	}
	return argPlan{kind: argValue, value: v}, nil
}

func planStruct(t reflect.Type, c *scope.Context, beside bool) (*structPlan, error) {
	sp := &structPlan{typ: t}
	sp.pool.New = func() any { return reflect.New(t).Interface() }
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && dig.IsIn(f.Type) {
			if f.Type != reflect.TypeFor[dig.In]() {
				return nil, errkind.New(ErrInvalidHandler, "%v: nested In structs are not supported", t)
			}
			continue
		}
		if !f.IsExported() {
			return nil, errkind.New(ErrInvalidHandler, "%v.%s is not exported", t, f.Name)
		}
		if f.Tag.Get("group") != "" {
			return nil, errkind.New(ErrInvalidHandler, "%v.%s: value groups are not supported in handlers", t, f.Name)
		}
		name := f.Tag.Get("name")
		optional := f.Tag.Get("optional") == "true"
		fp := fieldPlan{index: i, slot: -1}
		if a, ok, err := planRequestValue(f.Type, name, c, optional, beside); err != nil {
			return nil, fmt.Errorf("%w (field %s)", err, f.Name)
		} else if ok {
			fp.slot = a.slot
			sp.fields = append(sp.fields, fp)
			continue
		}
		if name != "" {
			if d := c.Lookup(scope.Key{Kind: scope.Request, Name: name}); d != nil {
				if beside {
					return nil, errBeside(fmt.Sprintf("request decorator %q (field %s)", name, f.Name))
				}
				// The registry says the decorator is visible; dig, which
				// holds its slot token, must agree.
				slot, err := c.ResolveSlot(name)
				if err != nil {
					return nil, fmt.Errorf("needs request decorator %q: %w", name, err)
				}
				if !d.ValueType.AssignableTo(f.Type) {
					return nil, errkind.New(httpx.ErrDecoratorType, "needs request decorator %q as %v (field %s), but it holds %v",
						name, f.Type, f.Name, d.ValueType)
				}
				fp.slot = slot
				sp.fields = append(sp.fields, fp)
				continue
			}
			if optional {
				// An invisible optional value is absent: the field keeps
				// its zero value (unless a visible service has the name).
				v, err := resolveService(c, f.Type, name, true)
				if err != nil {
					return nil, err
				}
				if !v.IsZero() {
					fp.value = v
					sp.fields = append(sp.fields, fp)
				}
				continue
			}
			if len(c.Providers(scope.Key{Kind: scope.Request, Name: name})) > 0 {
				_, err := c.Require(scope.Key{Kind: scope.Request, Name: name})
				return nil, fmt.Errorf("needs %w", err)
			}
		}
		v, err := resolveService(c, f.Type, name, optional)
		if err != nil {
			return nil, err
		}
		if v.IsValid() && !v.IsZero() {
			fp.value = v
			sp.fields = append(sp.fields, fp)
		}
	}
	return sp, nil
}

// resolveService asks dig for a service from c. When dig cannot build it,
// the registry explains where it is provided instead.
func resolveService(c *scope.Context, t reflect.Type, name string, optional bool) (reflect.Value, error) {
	v, err := c.Resolve(t, name, optional)
	if err == nil {
		return v, nil
	}
	key := scope.Key{Kind: scope.Service, Name: name, Type: t}
	if c.Lookup(key) == nil {
		if _, nerr := c.Require(key); nerr != nil {
			return reflect.Value{}, fmt.Errorf("needs %w", nerr)
		}
	}
	// Visible but not buildable: a constructor failed or its own
	// dependencies are missing. dig's message says which.
	return reflect.Value{}, fmt.Errorf("needs %v, which could not be built: %w", key, err)
}

func (sp *structPlan) fill(x *httpx.Exchange) any {
	p := sp.pool.Get()
	sp.fillInto(reflect.ValueOf(p).Elem(), x)
	return p
}

// fillInto sets the planned fields of v, a zeroed struct of sp.typ.
func (sp *structPlan) fillInto(v reflect.Value, x *httpx.Exchange) {
	for i := range sp.fields {
		f := &sp.fields[i]
		fv := v.Field(f.index)
		if f.slot < 0 {
			fv.Set(f.value)
			continue
		}
		if d := x.Slot(f.slot); d != nil {
			fv.Set(reflect.ValueOf(d))
		} else {
			fv.SetZero()
		}
	}
}

func (sp *structPlan) release(p any) {
	reflect.ValueOf(p).Elem().SetZero()
	sp.pool.Put(p)
}
