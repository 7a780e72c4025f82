package app_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// server that was not closed, a hook still running, a watcher not stopped.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
