package goid_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/internal/goid"
)

func TestCurrentTellsGoroutinesApart(t *testing.T) {
	t.Parallel()
	here := goid.Current()
	assert.NotZero(t, here)
	assert.Equal(t, here, goid.Current(), "the same goroutine, the same number")
	other := make(chan uint64)
	for range 3 {
		go func() { other <- goid.Current() }()
		id := <-other
		assert.NotZero(t, id)
		assert.NotEqual(t, here, id)
	}
}
