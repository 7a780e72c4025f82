package jwt_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestMain fails the package if a key refresh outlives its server.
func TestMain(m *testing.M) { apptest.Main(m) }
