// Package errkind builds errors that match a sentinel with errors.Is
// without printing the sentinel's text, so that a message names each
// thing once and reads as one sentence.
package errkind

import (
	"errors"
	"fmt"
)

type kindError struct {
	kind  error
	msg   string
	cause error
}

// New returns an error whose text is the formatted message and which
// matches kind with errors.Is. A %w verb in format wraps its operand as
// the cause, as fmt.Errorf does.
func New(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{kind: kind, msg: err.Error(), cause: errors.Unwrap(err)}
}

func (e *kindError) Error() string { return e.msg }

// Is reports whether target is the error's kind.
func (e *kindError) Is(target error) bool { return target == e.kind }

// Unwrap returns the cause wrapped with %w, if any.
func (e *kindError) Unwrap() error { return e.cause }

// Is reports whether err was made by New (anywhere in its chain).
func Is(err error) bool {
	var k *kindError
	return errors.As(err, &k)
}
