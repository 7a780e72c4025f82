package river_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// client not stopped, a job still running.
func TestMain(m *testing.M) { apptest.Main(m) }
