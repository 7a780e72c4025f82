package pgxdb_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// TestMain fails the package if a test leaves a goroutine behind, and
// stops the PostgreSQL cluster the tests shared.
func TestMain(m *testing.M) {
	code := m.Run()
	if cluster.pg != nil {
		cluster.pg.Stop()
	}
	if cluster.dir != "" {
		os.RemoveAll(cluster.dir)
	}
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// cluster is one PostgreSQL cluster for the package, started by the
// first test that needs it.
var cluster struct {
	once sync.Once
	dir  string
	pg   *pgtest.Server
	err  error
	dbs  atomic.Int64
}

// database makes a fresh database and returns its pool's configuration.
func database(t *testing.T) *pgxpool.Config {
	t.Helper()
	cluster.once.Do(func() {
		cluster.dir, cluster.err = os.MkdirTemp("", "pgxdb-postgres-")
		if cluster.err == nil {
			cluster.pg, cluster.err = pgtest.Launch(cluster.dir)
		}
	})
	if cluster.err != nil {
		if os.Getenv("CI") == "" && errors.Is(cluster.err, pgtest.ErrNotInstalled) {
			t.Skip(cluster.err)
		}
		t.Fatal(cluster.err)
	}
	url := cluster.pg.CreateDB(t, fmt.Sprintf("db%d", cluster.dbs.Add(1)))
	cfg, err := pgxpool.ParseConfig(url)
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
