package errkind_test

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/internal/errkind"
)

var errKind = errors.New("kind of failure")

func TestNewMatchesItsKindWithoutPrintingIt(t *testing.T) {
	t.Parallel()
	err := errkind.New(errKind, "reading %q: %w", "x", io.EOF)
	assert.EqualError(t, err, `reading "x": EOF`)
	assert.ErrorIs(t, err, errKind)
	assert.ErrorIs(t, err, io.EOF, "a %w operand stays the cause")
	assert.NotErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.True(t, errkind.Is(err))
	assert.False(t, errkind.Is(io.EOF))
}
