package httpx_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// server that was not closed, a handler still running, a client
// connection not released.
func TestMain(m *testing.M) { apptest.Main(m) }
