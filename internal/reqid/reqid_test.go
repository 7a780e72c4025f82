package reqid_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/internal/reqid"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for seq, want := range map[uint64]string{1: "req-1", 35: "req-z", 36: "req-10", 1<<64 - 1: "req-3w5e11264sgsf"} {
		assert.Equal(t, want, reqid.Of(seq))
	}
}
