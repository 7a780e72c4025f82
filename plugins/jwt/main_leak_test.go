package jwt_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain removes the provider built for the tests, and fails the
// package if a key refresh outlives its server (as apptest.Main).
func TestMain(m *testing.M) {
	code := m.Run()
	if providerDir != "" {
		os.RemoveAll(providerDir)
	}
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on a successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
