package pgxdb_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// TestMain fails the package if a test leaves a goroutine behind (a
// pool's connection, a server), and stops the PostgreSQL cluster the
// tests shared, if one started.
func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

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
