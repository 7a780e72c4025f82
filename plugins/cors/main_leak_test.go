package cors_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) { apptest.Main(m) }
