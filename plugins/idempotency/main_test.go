package idempotency_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"go.uber.org/goleak"
	_ "modernc.org/sqlite" // registers "sqlite"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// TestMain fails the package if a test leaves a goroutine behind (a
// pool's connection, a server), and stops the PostgreSQL cluster the
// tests shared, if one started.
func TestMain(m *testing.M) {
	code := m.Run()
	cluster.stop()
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
var cluster shared

type shared struct {
	once sync.Once
	dir  string
	pg   *pgtest.Server
	err  error
	dbs  atomic.Int64
}

func (c *shared) stop() {
	if c.pg != nil {
		c.pg.Stop()
	}
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// backend opens a fresh database of the kind named: "sqlite" (a file in
// a temporary directory) or "postgres" (a database of its own on the
// package's cluster). The pool is closed when the test ends, if the
// test did not.
type backend struct {
	name string
	open func(t testing.TB) *sql.DB
	// dsn makes a fresh database and names it.
	dsn func(t testing.TB) (driver, dsn string)
}

func (b backend) openTwice(t testing.TB) (db *sql.DB, reopen func() *sql.DB) {
	driver, dsn := b.dsn(t)
	open := func() *sql.DB {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	return open(), open
}

var backends = []backend{
	{"sqlite", openSQLite, sqliteDSN},
	{"postgres", openPostgres, postgresDSN},
}

func sqliteDSN(t testing.TB) (driver, dsn string) {
	path := filepath.Join(t.TempDir(), "test.db")
	return "sqlite", "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
}

func openSQLite(t testing.TB) *sql.DB {
	db, err := sql.Open(sqliteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t testing.TB) *sql.DB {
	db, err := sql.Open(postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func postgresDSN(t testing.TB) (driver, dsn string) {
	cluster.once.Do(func() {
		cluster.dir, cluster.err = os.MkdirTemp("", "idempotency-postgres-")
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
	name := fmt.Sprintf("db%d", cluster.dbs.Add(1))
	return "pgx", cluster.pg.CreateDB(t, name)
}
