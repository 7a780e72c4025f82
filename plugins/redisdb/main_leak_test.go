package redisdb_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if a test leaves a goroutine behind: a
// client not closed, a metrics callback not stopped.
func TestMain(m *testing.M) { apptest.Main(m) }
