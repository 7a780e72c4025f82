package app

import (
	"errors"

	"github.com/burrow-go/burrow/internal/errkind"
)

// handlerDef is a recorded error or not-found handler.
type handlerDef struct {
	fn any
}

// ErrHandlerSet is returned when a context sets a second error or
// not-found handler.
var ErrHandlerSet = errors.New("handler already set")

// SetErrorHandler sets the error handler of this context's routes (and of
// descendants that set none). fn takes the same parameters as a handler
// plus the error; it answers with the reply, or returns an error, in which
// case the parent context's handler gets that new error, up to the default
// handler, which logs it and sends the JSON error body.
func (s *Server) SetErrorHandler(fn any) error {
	return s.mutate(func() error {
		if fn == nil {
			return errkind.New(ErrInvalidHandler, "invalid error handler in %s: nil", s.Path())
		}
		if s.n.errorHandler != nil {
			return errkind.New(ErrHandlerSet, "the error handler of %s is already set", s.Path())
		}
		s.n.errorHandler = &handlerDef{fn: fn}
		return nil
	})
}

// SetNotFoundHandler sets the handler for unknown paths under this
// context's prefix. Only the root and contexts registered with a Prefix may
// set one. It runs the context's hooks. A known path with another method
// is answered 405 before any handler or hook runs, whatever is set here.
func (s *Server) SetNotFoundHandler(fn any) error {
	return s.mutate(func() error {
		if fn == nil {
			return errkind.New(ErrInvalidHandler, "invalid not-found handler in %s: nil", s.Path())
		}
		if parent := s.a.parent(s.n); parent != nil && (s.n.prefix == "" || s.n.prefix == parent.prefix) {
			return errkind.New(ErrInvalidHandler, "invalid not-found handler in %s: the context has no prefix of its own, so it would shadow its parent's; register the plugin with app.Prefix",
				s.Path())
		}
		if s.n.notFound != nil {
			return errkind.New(ErrHandlerSet, "the not-found handler of %s is already set", s.Path())
		}
		s.n.notFound = &handlerDef{fn: fn}
		return nil
	})
}
