package pgtest

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/internal/testbin"
)

// Shared is one cluster for a test package: the first test that asks
// for a database starts it, each gets a database of its own, and the
// package's TestMain stops it after m.Run. Its zero value is ready.
type Shared struct {
	once sync.Once
	dir  string
	s    *Server
	err  error
	dbs  atomic.Int64
}

// DB creates a fresh database on the cluster and returns its URL.
// Where PostgreSQL is missing, t is skipped, or failed when the
// environment has CI set.
func (sh *Shared) DB(t testing.TB) string {
	t.Helper()
	sh.once.Do(func() {
		sh.dir, sh.err = os.MkdirTemp("", "pgtest-")
		if sh.err == nil {
			sh.s, sh.err = Launch(sh.dir)
		}
	})
	if errors.Is(sh.err, ErrNotInstalled) {
		testbin.Missing(t, sh.err.Error())
	}
	if sh.err != nil {
		t.Fatal(sh.err)
	}
	return sh.s.CreateDB(t, fmt.Sprintf("db%d", sh.dbs.Add(1)))
}

// Stop stops the cluster, if a test started it, and removes its files.
func (sh *Shared) Stop() {
	if sh.s != nil {
		sh.s.Stop()
	}
	if sh.dir != "" {
		os.RemoveAll(sh.dir)
	}
}

// Main runs a package's tests, stops cluster, and fails the package if
// a goroutine is left running after them (a pool's connection, a
// server). Call it from TestMain.
func Main(m *testing.M, cluster *Shared) {
	code := m.Run()
	cluster.Stop()
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on a successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
