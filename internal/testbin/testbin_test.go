package testbin_test

import (
	"testing"

	"github.com/burrow-go/burrow/internal/testbin"
)

func TestLookPathFindsAProgram(t *testing.T) {
	if p := testbin.LookPath(t, "coreutils", "no-such-program-here", "sh"); p == "" {
		t.Fatal("sh not found")
	}
}
