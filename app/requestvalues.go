package app

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"go.uber.org/zap"
)

// The per-request life of request values (ProvideRequest): built on
// first use, kept in the request's exchange, handed to what takes them,
// cleaned up right before the reply is written (or when the request ends
// without one), and their cells given back.

// isBuilt reports whether the request value in slot i has been built in
// this request.
func (x *exchange) isBuilt(i int) bool { return i < len(x.built) && x.built[i] }

// keep stores v, the request value just built for slot i, for the rest of
// the request, and cleanup, if not nil, for popCleanup.
func (x *exchange) keep(i int, v any, cleanup func(failed bool) error) {
	if i >= len(x.built) {
		x.built = append(x.built, make([]bool, i+1-len(x.built))...)
	}
	x.built[i] = true
	x.SetSlot(i, v)
	if cleanup != nil {
		x.cleanups = append(x.cleanups, cleanup)
	}
}

// popCleanup removes and returns the cleanup of the request value built
// last whose cleanup has not been taken yet, or nil when none is left:
// cleanups run in the reverse order of their values' construction, as
// deferred calls do.
func (x *exchange) popCleanup() func(failed bool) error {
	c := x.cleanups
	if len(c) == 0 {
		return nil
	}
	f := c[len(c)-1]
	c[len(c)-1] = nil
	x.cleanups = c[:len(c)-1]
	return f
}

// run calls the constructor for x's request, whose dependencies are
// built, and keeps the value and its cleanup on x.
func (p *provider) run(x *exchange) error {
	v, cleanup, err := p.construct(x)
	if err != nil {
		return err // the value and the cleanup are not kept
	}
	x.keep(p.decl.Slot, v, cleanup)
	return nil
}

// runStepped is run as a step of steps, a "requestValue" one, and keeps
// a cleanup that runs as a "cleanup" step. The constructor runs with the
// step's context, the cleanup with the request's when it runs.
func (p *provider) runStepped(x *exchange, steps []stepFunc) (err error) {
	var (
		v       any
		cleanup func(bool) error
	)
	func() {
		end := beginStep(x, steps, Step{Kind: "requestValue", Name: p.label})
		defer func() { end(err) }() // a panic goes on to the request's error path
		v, cleanup, err = p.construct(x)
	}()
	if err != nil {
		return err
	}
	if cleanup != nil {
		inner := cleanup
		cleanup = func(failed bool) error {
			end := beginStep(x, steps, Step{Kind: "cleanup", Name: p.label, Failed: failed})
			err := protectCall(func() error { return inner(failed) })
			end(err)
			return err
		}
	}
	x.keep(p.decl.Slot, v, cleanup)
	return nil
}

// construct calls the constructor for x's request: the value, its
// cleanup (or nil) and the constructor's error.
func (p *provider) construct(x *exchange) (any, func(bool) error, error) {
	if p.build != nil {
		return p.build(x)
	}
	in := make([]reflect.Value, len(p.args))
	for i := range p.args {
		a := &p.args[i]
		if v, ok := requestArg(x, a); ok {
			in[i] = v
		} else if a.kind == argStruct {
			v := reflect.New(a.st.typ).Elem()
			a.st.fillInto(v, x)
			in[i] = v
		}
	}
	out := p.fn.Call(in)
	if len(out) > 1 {
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			return nil, nil, err
		}
	}
	var cleanup func(bool) error
	if len(out) == 3 {
		cleanup, _ = out[1].Interface().(func(bool) error)
	}
	return out[0].Interface(), cleanup, nil
}

// slotArg is the value of a request value parameter: the slot's value, or
// the zero value of the parameter's type for a nil one.
func slotArg(x *exchange, a *argPlan) reflect.Value {
	if v := x.Slot(a.slot); v != nil {
		return slotValue(v)
	}
	return a.value
}

// releaseValues gives back the cells of the request values built in x's
// request, once it is answered and cleaned up.
func (rt *route) releaseValues(x *exchange) {
	for _, p := range rt.values {
		if p.release != nil && x.isBuilt(p.decl.Slot) {
			p.release(x.Slot(p.decl.Slot))
		}
	}
}

// cleanUp runs the cleanups of the request values built so far in x's
// request, last built first, and returns their errors joined. A panicking
// cleanup is an error like a failing one; every cleanup runs, and once
// one has failed the rest are told the request failed: it is answered
// as failed, so a value built earlier must not commit what a later one
// could not.
func cleanUp(x *exchange, failed bool) error {
	var errs []error
	for c := x.popCleanup(); c != nil; c = x.popCleanup() {
		if err := protectCall(func() error { return c(failed) }); err != nil {
			errs = append(errs, err)
			failed = true
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("request value cleanup failed: %w", errors.Join(errs...))
}

// settle runs the cleanups of a request whose reply is not written yet:
// err is what the handler (or a hook) returned. A failing cleanup is the
// error the request is answered with when there was none; otherwise it is
// logged and err answers.
func (rt *route) settle(x *exchange, err error) error {
	cerr := cleanUp(x, err != nil || x.Reply().Status() >= 400)
	switch {
	case cerr == nil:
		return err
	case err == nil:
		return cerr
	}
	x.Request().Log().Error(cerr.Error(), zap.Error(cerr))
	return err
}

// settleSent runs the cleanups left once the reply is written, and logs a
// failure: the client has its answer already.
func (rt *route) settleSent(x *exchange, failed bool) {
	if err := cleanUp(x, failed || x.Reply().Status() >= 400); err != nil {
		x.Request().Log().Error(err.Error(), zap.Error(err))
	}
}

// endValues is deferred by the requests of a route that uses request
// values: after a panic that goes on to net/http (http.ErrAbortHandler),
// it runs the cleanups left, as failed, before the panic does.
func (rt *route) endValues(x *exchange) {
	if p := recover(); p != nil {
		_ = cleanUp(x, true)
		panic(p)
	}
}

// commitOnWrite makes the next Send of x's reply run the cleanups of the
// request values right before it writes: after the send hooks and the
// encoding, so a reply they fail is a failed request (rolled back, and
// answered by the error path), and before the write, so a failing
// cleanup (a commit) is the error the client is answered with.
func (rt *route) commitOnWrite(x *exchange) {
	if rt.scoped {
		x.BeforeWrite(x.commit)
	}
}

// commitValues runs the cleanups of a request whose reply is about to be
// written; it is failed when the reply's status is, or when the request
// time-out has passed: the client gets its 503 instead of the reply.
func commitValues(x *exchange) error {
	ctx := x.Request().Context()
	late := ctx.Err() != nil && context.Cause(ctx) == errDeadline
	return cleanUp(x, late || x.Reply().Status() >= 400)
}
