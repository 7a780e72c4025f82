package app

import "github.com/burrow-go/burrow/internal/errkind"

// handlerDef is a recorded error or not-found handler.
type handlerDef struct {
	fn any
}

// SetErrorHandler sets the error handler of this context's routes (and of
// descendants that set none). fn takes the same parameters as a handler
// plus the error; it answers with the reply, or returns an error, in which
// case the parent context's handler gets that new error, up to the default
// handler, which logs it and sends the JSON error body.
func (s *Server) SetErrorHandler(fn any) error {
	return s.mutate("error handler", func() error {
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
