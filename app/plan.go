package app

import (
	"context"
	"encoding"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.uber.org/dig"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// In marks a parameter struct whose fields Burrow fills one by one, as
// dig.In does: a field tagged name:"x" receives the request decorator (or
// the named service) x; an untagged field receives the service of its type;
// optional:"true" makes an invisible value the zero value instead of a
// start-up error. An embedded struct holding such fields (or an embedded
// In struct) is flattened: its fields are filled as the struct's own.
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
	path  []int // a field of an embedded struct: its path (index is then its first step); nil otherwise
	src   fieldSource
	slot  int           // fromDecorator: the request decorator's slot
	value reflect.Value // fromService: the service
	input inputKind     // fromInput, fromWrapper: which decoded input
}

// fieldSource is where an In struct field's value comes from.
type fieldSource uint8

const (
	fromNothing   fieldSource = iota // an absent optional value: the zero value
	fromService                      // a service, resolved at start-up
	fromDecorator                    // a request decorator's slot
	fromText                         // a path, query, header or cookie field, decoded per request
	fromInput                        // the decoded body (body tag)
	fromWrapper                      // Body, Query or Params
	fromRequest
	fromReply
	fromContext
	fromLogger
)

// planOptions says which extra built-ins a function may take.
type planOptions struct {
	allowError bool        // error handlers and onError hooks get the error
	inputs     *inputNeeds // where Body, Query and Params may be taken: what they ask
	inputPhase string      // where they may not: why, for the message
	beside     bool        // onTimeout and onRequestAbort hooks: no reply, no decorators
	noReply    bool        // request-scoped constructors: a hook may build the value before the handler runs; the reply is not theirs to write
	route      *routeShape // the route's, for hints: what a field Burrow cannot fill may have meant
}

// routeShape is what a route reads that an untagged In struct field may
// have meant to take: its path parameters, in path order, and whether
// its method carries a body.
type routeShape struct {
	params []string
	body   bool
}

func newRouteShape(method, path string) *routeShape {
	rs := &routeShape{body: method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch}
	for seg := range strings.SplitSeq(path, "/") {
		if name, ok := routepath.Param(seg); ok {
			rs.params = append(rs.params, name)
		}
	}
	return rs
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

// reflective reports whether planHandler calls fn through
// reflect.Value.Call: any function but the common shapes it switches on
// and the Handlers of Typed, TypedValue and Get, Post, … Handle.
func reflective(fn any) bool {
	switch fn.(type) {
	case nil, func(*httpx.Request, *httpx.Reply) error, func(*httpx.Request, *httpx.Reply),
		func(*httpx.Request) (any, error), func(*httpx.Request) error, func(*httpx.Reply) error,
		func() error, func(), Handler, http.Handler, func(http.ResponseWriter, *http.Request):
		return false
	}
	return true
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
	case func(*httpx.Request) error:
		return func(x *httpx.Exchange, _ error) (any, error) { return nil, f(x.Request()) }, nil
	case func(*httpx.Reply) error:
		if opt.beside {
			return nil, errBeside("*httpx.Reply")
		}
		return func(x *httpx.Exchange, _ error) (any, error) { return nil, f(x.Reply()) }, nil
	case func() error:
		return func(*httpx.Exchange, error) (any, error) { return nil, f() }, nil
	case func():
		return func(*httpx.Exchange, error) (any, error) { f(); return nil, nil }, nil
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
		bufp := argPool.Get().(*[]reflect.Value)
		in := *bufp
		var keep [4]any // In structs in flight; more than four is rare
		filled := keep[:0]
		for i := range args {
			a := &args[i]
			if v, ok := requestArg(x, a); ok {
				in[i] = v
				continue
			}
			switch a.kind {
			case argReply:
				in[i] = reflect.ValueOf(x.Reply())
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
			case argInput:
				in[i] = inputValue(x, a)
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
	if err := notTakeable(t); err != nil {
		return argPlan{}, err
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
		st, err := planStruct(t, c, opt)
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
		if hasInputTags(t) {
			return argPlan{}, fmt.Errorf("%w; its fields have Burrow's tags: embed app.In in %v so Burrow fills them", err, t)
		}
		return argPlan{}, decoratorHint(err, t, c, "take it through an In struct field tagged name:%q")
	}
	return argPlan{kind: argValue, value: v}, nil
}

// notTakeable refuses, with the fix, the net/http types a handler or
// hook cannot take: Burrow's own wrap them.
func notTakeable(t reflect.Type) error {
	switch t {
	case typeStdRequest:
		return errkind.New(ErrInvalidHandler, "*http.Request cannot be taken: use *httpx.Request, whose Raw() is the *http.Request")
	case typeStdWriter:
		return errkind.New(ErrInvalidHandler, "http.ResponseWriter cannot be taken: use *httpx.Reply, whose Raw() is the http.ResponseWriter")
	}
	return nil
}

// hasInputTags reports whether t is a struct with a field tagged for an
// In struct: the sign of a forgotten app.In.
func hasInputTags(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag
		if inputTagged(tag) || (f.Anonymous && hasInputTags(f.Type)) {
			return true
		}
		for _, k := range [...]string{"name", "optional", "default"} {
			if _, ok := tag.Lookup(k); ok {
				return true
			}
		}
	}
	return false
}

var (
	typeStdRequest = reflect.TypeFor[*http.Request]()
	typeStdWriter  = reflect.TypeFor[http.ResponseWriter]()
)

// decoratorHint adds to err, a service of type t that could not be found,
// the fix when a visible request decorator holds a t: the missing name
// tag (fix is a format with the decorator's name), or when a service of
// the pointer (or pointed-to) type is visible: the type to take.
func decoratorHint(err error, t reflect.Type, c *scope.Context, fix string) error {
	for _, d := range c.Visible(scope.Request) {
		if d.ValueType == t {
			return fmt.Errorf("%w; request decorator %q holds a %v: %s", err, d.Name, t, fmt.Sprintf(fix, d.Name))
		}
	}
	if alt := pointerTwin(t); alt != nil {
		if d := c.Lookup(scope.Key{Kind: scope.Service, Type: alt}); d != nil {
			return fmt.Errorf("%w; %v is provided in %s: take it as %v", err, alt, d.Where(), alt)
		}
	}
	return err
}

// pointerTwin is *T for T and T for *T: the type a value-versus-pointer
// mistake was meant to be.
func pointerTwin(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return nil
	}
	return reflect.PointerTo(t)
}

// needInput records that an In struct field (what) takes input of kind k
// decoded into t, where the hook or handler may take input at all.
func needInput(opt planOptions, k inputKind, t reflect.Type, what string) error {
	if opt.inputs == nil {
		where := opt.inputPhase
		if where == "" {
			where = "here"
		}
		return errkind.New(ErrInvalidInput, "%s cannot be taken %s", what, where)
	}
	return opt.inputs.need(k, t)
}

func planStruct(t reflect.Type, c *scope.Context, opt planOptions) (*structPlan, error) {
	sp := &structPlan{typ: t}
	sp.pool.New = func() any { return reflect.New(t).Interface() }
	texts, err := sp.planFields(t, t, nil, c, opt)
	if err != nil {
		return nil, err
	}
	if texts {
		if err := needInput(opt, inputFields, t, fmt.Sprintf("%v (its path, query, header and cookie fields)", t)); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// planFields plans the fields of st, which is In struct t or a struct
// embedded in it at index: an embedded struct that holds fields Burrow
// fills (an embedded In struct, or one whose fields carry Burrow's tags)
// is flattened into t, as encoding/json flattens one, so a group of
// inputs (pagination, filters) is written once and embedded where it is
// needed. It reports whether a field takes a path, query, header or
// cookie value.
func (sp *structPlan) planFields(t, st reflect.Type, index []int, c *scope.Context, opt planOptions) (bool, error) {
	texts := false
	for i := range st.NumField() {
		f := st.Field(i)
		at := append(slices.Clip(index), i)
		if f.Anonymous && f.Type == reflect.TypeFor[dig.In]() {
			continue
		}
		if flattened(f) {
			more, err := sp.planFields(t, f.Type, at, c, opt)
			if err != nil {
				return false, err
			}
			texts = texts || more
			continue
		}
		if e := f.Type; f.Anonymous && !inputTagged(f.Tag) && f.Tag.Get("name") == "" &&
			e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.Struct && (dig.IsIn(e.Elem()) || hasInputTags(e.Elem())) {
			return false, errkind.New(ErrInvalidHandler, "%v embeds %v: embed %v by value, whose fields Burrow fills in place",
				t, e, e.Elem())
		}
		if !f.IsExported() {
			return false, errkind.New(ErrInvalidHandler, "%v.%s is not exported", t, inputfields.GoName(t, at))
		}
		if f.Tag.Get("group") != "" {
			return false, errkind.New(ErrInvalidHandler, "%v.%s: value groups are not supported in handlers", t, inputfields.GoName(t, at))
		}
		fp, err := planField(st, f, c, opt)
		if err != nil {
			return false, err
		}
		fp.index = at[0]
		if len(at) > 1 {
			fp.path = at
		}
		texts = texts || fp.src == fromText
		if fp.src != fromNothing {
			sp.fields = append(sp.fields, fp)
		}
	}
	return texts, nil
}

// flattened reports whether f, a field of an In struct, is an embedded
// struct whose fields Burrow fills in place: an In struct, or one whose
// fields carry Burrow's tags.
func flattened(f reflect.StructField) bool {
	return f.Anonymous && !inputTagged(f.Tag) && f.Tag.Get("name") == "" &&
		f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[dig.In]() && (dig.IsIn(f.Type) || hasInputTags(f.Type))
}

// flatFields are the fields of In struct t as Burrow fills them: those
// of flattened embedded structs in their place, embedded app.In left out.
func flatFields(t reflect.Type) iter.Seq[reflect.StructField] {
	return func(yield func(reflect.StructField) bool) {
		var walk func(t reflect.Type) bool
		walk = func(t reflect.Type) bool {
			for i := range t.NumField() {
				f := t.Field(i)
				switch {
				case f.Anonymous && f.Type == reflect.TypeFor[dig.In]():
				case flattened(f):
					if !walk(f.Type) {
						return false
					}
				case !yield(f):
					return false
				}
			}
			return true
		}
		walk(t)
	}
}

// planField plans field f of In struct t.
func planField(t reflect.Type, f reflect.StructField, c *scope.Context, opt planOptions) (fieldPlan, error) {
	fp := fieldPlan{index: f.Index[0], slot: -1}
	src, err := textSource(t, f)
	if err != nil {
		return fp, err
	}
	_, isBody := f.Tag.Lookup(bodyTag)
	if p, ok := f.Tag.Lookup("param"); ok && src == "" && !isBody {
		return fp, errkind.New(ErrInvalidInput, "%v.%s is tagged param:%q, as a Params struct's field is: "+
			"an In struct's path parameter is tagged path:%q", t, f.Name, p, p)
	}
	switch {
	case src != "" && isBody:
		return fp, errkind.New(ErrInvalidInput, "%v.%s is tagged both %s and body: a field holds one value", t, f.Name, src)
	case src != "":
		fp.src = fromText
		return fp, nil
	case isBody && f.Tag.Get("default") != "":
		return fp, errkind.New(ErrInvalidInput, "%v.%s: a body takes no default; an absent body is refused with validate:\"required\" "+
			"or decoded as the zero value", t, f.Name)
	case isBody:
		fp.src, fp.input = fromInput, inputBody
		if err := needInput(opt, inputBody, f.Type, fmt.Sprintf("%v.%s (the body)", t, f.Name)); err != nil {
			return fp, err
		}
		return fp, opt.inputs.needBodyRules(t, f)
	case f.Tag.Get("default") != "" || f.Tag.Get("validate") != "":
		return fp, errkind.New(ErrInvalidInput, "%v.%s: default and validate tags apply to path, query, header, cookie, form and body fields", t, f.Name)
	case f.Type.Kind() == reflect.Struct && f.Type.Implements(typeInputParam):
		a, err := planInput(f.Type, opt)
		if err != nil {
			return fp, err
		}
		fp.src, fp.input = fromWrapper, a.input
		return fp, nil
	}
	name := f.Tag.Get("name")
	if name == "" {
		switch f.Type {
		case typeRequest:
			fp.src = fromRequest
			return fp, nil
		case typeReply:
			if opt.beside {
				return fp, errBeside(fmt.Sprintf("*httpx.Reply (field %s)", f.Name))
			}
			if opt.noReply {
				return fp, errkind.New(ErrInvalidDecorator, "cannot take *httpx.Reply (field %s)", f.Name)
			}
			fp.src = fromReply
			return fp, nil
		case typeContext:
			fp.src = fromContext
			return fp, nil
		case typeLogger:
			fp.src = fromLogger
			return fp, nil
		}
		if err := notTakeable(f.Type); err != nil {
			return fp, fmt.Errorf("%v.%s: %w", t, f.Name, err)
		}
	}
	optional := f.Tag.Get("optional") == "true"
	if a, ok, err := planRequestValue(f.Type, name, c, optional, opt.beside); err != nil {
		return fp, fmt.Errorf("%w (field %s)", err, f.Name)
	} else if ok {
		fp.src, fp.slot = fromDecorator, a.slot // a request value lives in a slot, as a decorator does
		return fp, nil
	}
	if name != "" {
		if d := c.Lookup(scope.Key{Kind: scope.Request, Name: name}); d != nil {
			if opt.beside {
				return fp, errBeside(fmt.Sprintf("request decorator %q (field %s)", name, f.Name))
			}
			// The registry says the decorator is visible; dig, which
			// holds its slot token, must agree.
			slot, err := c.ResolveSlot(name)
			if err != nil {
				return fp, fmt.Errorf("needs request decorator %q: %w", name, err)
			}
			if !d.ValueType.AssignableTo(f.Type) {
				err := errkind.New(httpx.ErrDecoratorType, "needs request decorator %q as %v (field %s), but it holds %v",
					name, f.Type, f.Name, d.ValueType)
				if pointerTwin(f.Type) == d.ValueType {
					err = fmt.Errorf("%w: declare the field as %v", err, d.ValueType)
				}
				return fp, err
			}
			fp.src, fp.slot = fromDecorator, slot
			return fp, nil
		}
		if optional {
			// An invisible optional value is absent: the field keeps
			// its zero value (unless a visible service has the name).
			v, err := resolveService(c, f.Type, name, true)
			if err != nil {
				return fp, err
			}
			if !v.IsZero() {
				fp.src, fp.value = fromService, v
			}
			return fp, nil
		}
		if len(c.Providers(scope.Key{Kind: scope.Request, Name: name})) > 0 {
			_, err := c.Require(scope.Key{Kind: scope.Request, Name: name})
			return fp, fmt.Errorf("needs %w", err)
		}
	}
	v, err := resolveService(c, f.Type, name, optional)
	if err != nil {
		if name == "" {
			if hinted := decoratorHint(err, f.Type, c, "tag the field "+f.Name+" name:%q"); hinted != err {
				return fp, hinted
			}
			err = inputHint(err, f, opt)
		}
		return fp, err
	}
	if v.IsValid() && !v.IsZero() {
		fp.src, fp.value = fromService, v
	}
	return fp, nil
}

// inputHint adds to err, a service that could not be found for the
// untagged field f, the tag the field may have been meant to have: a
// group's, when its type's fields carry Burrow's tags; a path
// parameter's, when its type is a path value's and the route has one;
// the body's, when it looks like one and the route's method carries one.
func inputHint(err error, f reflect.StructField, opt planOptions) error {
	if _, isFile := fileType(f.Type); isFile {
		return fmt.Errorf("%w; did you mean to tag the field %s form:%q, to take an uploaded file?", err, f.Name, strings.ToLower(f.Name))
	}
	if src := tagSourceOf(f.Type); src != "" {
		return fmt.Errorf("%w; the fields of %v have Burrow's tags: tag the field %s %s:\"\" to read them, or embed %v",
			err, f.Type, f.Name, src, f.Type)
	}
	rs := opt.route
	if rs == nil || opt.inputs == nil {
		return err
	}
	if len(rs.params) > 0 && textValue(f.Type) {
		for _, p := range rs.params {
			if strings.EqualFold(p, f.Name) {
				return fmt.Errorf("%w; did you mean to tag the field %s path:%q?", err, f.Name, p)
			}
		}
		if len(rs.params) == 1 {
			return fmt.Errorf("%w; did you mean to tag the field %s path:%q?", err, f.Name, rs.params[0])
		}
		return fmt.Errorf("%w; did you mean to tag the field %s path:\"…\", one of %s?", err, f.Name, strings.Join(rs.params, ", "))
	}
	if rs.body && opt.inputs.types[inputBody] == nil && bodyValue(f.Type) {
		return fmt.Errorf("%w; did you mean to tag the field %s body:\"\"?", err, f.Name)
	}
	return err
}

// tagSourceOf is the source tag ("query", …) of the first field of
// struct t, or of a struct it embeds, that has one; "" for none.
func tagSourceOf(t reflect.Type) string {
	if t.Kind() != reflect.Struct {
		return ""
	}
	for i := range t.NumField() {
		f := t.Field(i)
		for _, s := range textSources {
			if _, ok := f.Tag.Lookup(s.tag); ok {
				return s.tag
			}
		}
		if f.Anonymous {
			if src := tagSourceOf(f.Type); src != "" {
				return src
			}
		}
	}
	return ""
}

// textValue reports whether t is a type a path parameter decodes into.
func textValue(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(typeTextUnmarshaler) {
		return true
	}
	k := t.Kind()
	return k == reflect.String || k == reflect.Bool || (k >= reflect.Int && k <= reflect.Uint64) || k == reflect.Float32 || k == reflect.Float64
}

// bodyValue reports whether t looks like a body rather than a service: a
// struct, a slice or a map held by value (services are most often
// pointers or interfaces).
func bodyValue(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map:
		return !dig.IsIn(t)
	}
	return false
}

var typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

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
	in := x.Input()
	var texts reflect.Value // the decoded text fields, when the route has them
	if p := in[inputFields]; p != nil {
		texts = reflect.ValueOf(p).Elem()
	}
	for i := range sp.fields {
		f := &sp.fields[i]
		var fv reflect.Value
		if f.path == nil {
			fv = v.Field(f.index)
		} else {
			fv = v.FieldByIndex(f.path)
		}
		switch f.src {
		case fromService:
			fv.Set(f.value)
		case fromDecorator:
			if d := x.Slot(f.slot); d != nil {
				fv.Set(slotValue(d))
			} else {
				fv.SetZero()
			}
		case fromText:
			if texts.IsValid() && texts.Type() == sp.typ {
				if f.path == nil {
					fv.Set(texts.Field(f.index))
				} else {
					fv.Set(texts.FieldByIndex(f.path))
				}
			}
		case fromInput:
			if d := in[f.input]; d != nil {
				fv.Set(reflect.ValueOf(d).Elem())
			}
		case fromWrapper:
			if d := in[f.input]; d != nil {
				fv.Field(0).Set(reflect.ValueOf(d).Elem())
			}
		case fromRequest:
			fv.Set(reflect.ValueOf(x.Request()))
		case fromReply:
			fv.Set(reflect.ValueOf(x.Reply()))
		case fromContext:
			fv.Set(reflect.ValueOf(x.Request().Context()))
		case fromLogger:
			fv.Set(reflect.ValueOf(x.Request().Log()))
		}
	}
}

func (sp *structPlan) release(p any) {
	reflect.ValueOf(p).Elem().SetZero()
	sp.pool.Put(p)
}
