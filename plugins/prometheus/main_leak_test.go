package prometheus_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// server that was not closed, a hook still running, a watcher not stopped.
func TestMain(m *testing.M) { apptest.Main(m) }
