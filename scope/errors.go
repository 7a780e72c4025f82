package scope

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNotVisible is matched by a *NotVisibleError: a context asked for a
	// value that neither it nor any ancestor declares.
	ErrNotVisible = errors.New("not visible")
	// ErrDuplicate is matched by a *DuplicateError.
	ErrDuplicate = errors.New("already declared")
)

// NotVisibleError says that Key is not visible from From, and where in the
// tree it is provided, if anywhere. When Key is an interface that nothing
// provides, Implementers are the visible values that implement it.
type NotVisibleError struct {
	Key          Key
	From         *Context
	ProvidedIn   []*Decl
	Implementers []*Decl
}

func (e *NotVisibleError) Error() string {
	var b strings.Builder
	b.WriteString(e.Key.String())
	if len(e.ProvidedIn) == 0 {
		b.WriteString(", which no context provides")
		if len(e.Implementers) > 0 {
			d := e.Implementers[0]
			fmt.Fprintf(&b, "; %v %v, provided in %s, implements it: provide it with app.As[%v]()",
				d.Kind, d.Type, d.Where(), e.Key.Type)
		}
		return b.String()
	}
	b.WriteString(", which is only provided in ")
	for i, d := range e.ProvidedIn {
		if i > 0 {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%s %s", e.From.relation(d.Context), d.Where())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrNotVisible) true.
func (e *NotVisibleError) Is(target error) bool { return target == ErrNotVisible }

// DuplicateError says that Key was declared in In while Prev already was.
type DuplicateError struct {
	Key  Key
	In   *Context
	Prev *Decl
}

func (e *DuplicateError) Error() string {
	if e.Prev.Context == e.In {
		return fmt.Sprintf("%s is already declared in %s", e.Key, e.Prev.Where())
	}
	return fmt.Sprintf("%s is already declared in %s %s and visible from %s",
		e.Key, e.In.relation(e.Prev.Context), e.Prev.Where(), e.In.Path())
}

// Is makes errors.Is(err, ErrDuplicate) true.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }
