package health_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if a check's goroutine outlives its server.
func TestMain(m *testing.M) { apptest.Main(m) }
