package app

import (
	"context"
	"net/http"
	"reflect"

	"go.uber.org/dig"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
)

// Get registers h as the GET (and HEAD) route at path. A typed route is
// the handler form to write. In is a struct embedding [In],
// whose fields Burrow fills (path, query, header and cookie values, the
// decoded body, request decorators, services), or struct{} for a handler
// that needs none; Out is what h answers with. h is called directly, with
// no reflection per request: In is planned once, at Ready, and filled
// from a pool.
//
//	type getTodo struct {
//		app.In
//		ID    int64 `path:"id" validate:"min=1"`
//		Store *Store
//	}
//	app.Get(s, "/todos/:id", func(ctx context.Context, in getTodo) (todo, error) {
//		return in.Store.Get(ctx, in.ID)
//	})
//
// Out is sent as a 200 reply (JSON for a struct), or with the status of
// the route option [Status]; [NoContent] answers 204, [Created] 201 with
// a Location header, and [Redirect] 303 (or its Status) with a Location
// header and no body.
func Get[In, Out any](s *Server, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	return Handle(s, http.MethodGet, path, h, opts...)
}

// Post registers h as the POST route at path; see [Get].
func Post[In, Out any](s *Server, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	return Handle(s, http.MethodPost, path, h, opts...)
}

// Put registers h as the PUT route at path; see [Get].
func Put[In, Out any](s *Server, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	return Handle(s, http.MethodPut, path, h, opts...)
}

// Patch registers h as the PATCH route at path; see [Get].
func Patch[In, Out any](s *Server, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	return Handle(s, http.MethodPatch, path, h, opts...)
}

// Delete registers h as the DELETE route at path; see [Get].
func Delete[In, Out any](s *Server, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	return Handle(s, http.MethodDelete, path, h, opts...)
}

// Handle registers h as the route for method and path; see [Get].
func Handle[In, Out any](s *Server, method, path string, h func(context.Context, In) (Out, error), opts ...RouteOption) error {
	if h == nil {
		return s.Route(method, path, nil, opts...) // the nil-handler error
	}
	var probe routeDef // the options' status, which the handler applies
	for _, o := range opts {
		o(&probe)
	}
	return s.Route(method, path, &typedRoute[In, Out]{fn: h, status: probe.status}, opts...)
}

// NoContent is the Out of a route that answers 204 with no body.
type NoContent struct{}

func (NoContent) reply(rep *httpx.Reply, _ int) error {
	return rep.Code(http.StatusNoContent).Send(nil)
}

// Created is the Out of a route that creates a resource: it answers 201,
// with Location as the Location header (when not empty) and Value as the
// body.
type Created[T any] struct {
	Location string
	Value    T
}

func (c Created[T]) reply(rep *httpx.Reply, _ int) error {
	if c.Location == "" {
		return rep.Code(http.StatusCreated).Send(c.Value)
	}
	h := rep.Header()
	h.Set("Location", c.Location)
	err := rep.Code(http.StatusCreated).Send(c.Value)
	if err != nil && !rep.Sent() {
		h.Del("Location") // the error reply creates nothing
	}
	return err
}

func (Created[T]) bodyType() reflect.Type { return reflect.TypeFor[T]() }

// createdReply is what every Created[T] is.
type createdReply interface {
	replier
	bodyType() reflect.Type
}

// replier is an Out that sends itself, with its own status and headers.
// A route's handler returns it rather than sending it, so that the reply
// is written after the request values' cleanups, as any returned value
// is: a commit that fails answers instead, and nothing of the success
// reply is left on the error reply (the route takes the status back, a
// replier its headers). status is the route's, from Status (0 for
// none), which only a Redirect takes.
type replier interface {
	reply(rep *httpx.Reply, status int) error
}

// routeTypes describes a typed route, for the route description an
// OpenAPI generator reads: its input struct, its success status, the type
// of the body it answers (nil for none) and the headers it sets.
type routeTypes struct {
	In      reflect.Type
	Status  int
	Body    reflect.Type
	Headers []string
}

// typedRoute is the handler of a route registered with Handle.
type typedRoute[In, Out any] struct {
	fn     func(context.Context, In) (Out, error)
	status int // from Status; 0 for the default
}

func (t *typedRoute[In, Out]) target() any { return t.fn }

// types is what the route answers, read from Out.
func (t *typedRoute[In, Out]) types() routeTypes {
	rt := routeTypes{In: reflect.TypeFor[In](), Status: http.StatusOK, Body: reflect.TypeFor[Out]()}
	var out Out
	switch o := any(out).(type) {
	case NoContent:
		rt.Status, rt.Body = http.StatusNoContent, nil
	case createdReply:
		rt.Status, rt.Body, rt.Headers = http.StatusCreated, o.bodyType(), []string{"Location"}
	case Redirect:
		rt.Status, rt.Body, rt.Headers = defaultRedirect, nil, []string{"Location"}
		if t.status != 0 {
			rt.Status = t.status
		}
	default:
		if t.status != 0 {
			rt.Status = t.status
		}
	}
	return rt
}

var typeNoInput = reflect.TypeFor[struct{}]()

func (t *typedRoute[In, Out]) direct(c *scope.Context, opt planOptions) (invoker, error) {
	get, err := planRouteInput[In](t.fn, c, opt)
	if err != nil {
		return nil, err
	}
	fn := t.fn
	var out Out
	switch any(out).(type) {
	case Redirect:
		if t.status != 0 && !redirectStatus(t.status) {
			return nil, errkind.New(ErrInvalidHandler, "answers an app.Redirect, so its Status must be a redirect status (301, 302, 303, 307 or 308), not %d", t.status)
		}
	case replier:
		if t.status != 0 {
			return nil, errkind.New(ErrInvalidHandler, "%T declares its own status, so Status does not apply", out)
		}
	default:
		if redirectStatus(t.status) {
			return nil, errkind.New(ErrInvalidHandler, "has the redirect status %d, which only a route answering app.Redirect takes", t.status)
		}
	}
	// The status of Status is set by the route as it sends o (see
	// route.reply), so that a send that fails takes it back.
	return func(x *exchange, herr error) (any, error) {
		o, err := fn(x.Request().Context(), get(x, herr))
		if err != nil {
			return nil, err
		}
		return o, nil
	}, nil
}

// planRouteInput plans In, the input struct of fn, a route's handler made
// by Handle or Events; struct{} is no input.
func planRouteInput[In any](fn any, c *scope.Context, opt planOptions) (func(*exchange, error) In, error) {
	if opt.beside || opt.allowError || opt.inputs == nil {
		return nil, errkind.New(ErrInvalidHandler, "%T is a route's handler (made by app.Get, app.Post, … app.Handle), not a hook's", fn)
	}
	in := reflect.TypeFor[In]()
	if in == typeNoInput {
		return func(*exchange, error) In { var zero In; return zero }, nil
	}
	if !dig.IsIn(in) || in.Kind() != reflect.Struct {
		return nil, errkind.New(ErrInvalidHandler, "%v cannot be a route's input: embed app.In in a struct, or use struct{} for no input", in)
	}
	return planDirect[In](c, opt)
}

// replyStatus is the status of Status, which the route sends the
// handler's value with; 0 for none.
func (t *typedRoute[In, Out]) replyStatus() int { return t.status }

// typedHandler is a handler made by Handle.
type typedHandler interface {
	Handler
	types() routeTypes
	replyStatus() int
}
