package pgxdb_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// TestMain fails the package if a test leaves a goroutine behind, and
// stops the PostgreSQL cluster the tests shared.
func TestMain(m *testing.M) {
	code := m.Run()
	cluster.Stop()
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// cluster is one PostgreSQL cluster for the package.
var cluster pgtest.Shared

// database makes a fresh database and returns its pool's configuration.
func database(t *testing.T) *pgxpool.Config {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(cluster.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// open opens a pool of cfg, closed when the test ends (if the test did
// not).
func open(t *testing.T, cfg *pgxpool.Config) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
