package app_test

import (
	"os"
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// server that was not closed, a hook still running, a watcher not stopped.
// Started with runChildEnv set, the test binary is instead the small
// service Run's tests send signals to (runChild).
func TestMain(m *testing.M) {
	if mode := os.Getenv(runChildEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	apptest.Main(m)
}
