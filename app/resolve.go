package app

import (
	"fmt"
	"reflect"

	"go.uber.org/dig"

	"github.com/burrow-go/burrow/internal/errkind"
)

// Resolve fills T, a struct embedding In, with the services its fields
// name, as seen from s's context: planned as a typed route's In struct
// is (untagged fields by type, name:"x" by name, optional:"true"), so a
// service only a sibling provides fails with the same message a route
// gets. It is for what runs outside a request — a background worker, a
// consumer — and is called once the routes are compiled: in an OnReady
// hook or after Ready. A field that only a request has (its input, a
// request decorator or value, *httpx.Request, context.Context) is
// refused, since there is no request to take it from.
func Resolve[T any](s *Server) (T, error) {
	var zero T
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct || !dig.IsIn(t) {
		return zero, errkind.New(ErrInvalidHandler, "Resolve: %v is not a struct embedding app.In", t)
	}
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.compiled {
		return zero, errkind.New(ErrInvalidHandler, "Resolve of %v in %s: call it in an OnReady hook or after Ready", t, s.Path())
	}
	sp, err := planStruct(t, s.n.ctx, planOptions{inputPhase: "outside a request"})
	if err != nil {
		return zero, fmt.Errorf("%v in %s: %w", t, s.Path(), err)
	}
	v := reflect.New(t).Elem()
	for _, f := range sp.fields {
		if f.src != fromService {
			name := t.Field(f.index).Name
			return zero, errkind.New(ErrInvalidHandler, "%v.%s in %s: only services can be resolved outside a request", t, name, s.Path())
		}
		if f.path == nil {
			v.Field(f.index).Set(f.value)
		} else {
			v.FieldByIndex(f.path).Set(f.value)
		}
	}
	return v.Interface().(T), nil
}
