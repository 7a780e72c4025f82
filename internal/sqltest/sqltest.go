// Package sqltest opens fresh databases for the tests of code that runs
// on several databases through database/sql: SQLite (a file in the
// test's temporary directory, driver "sqlite") and PostgreSQL (a
// database of its own on a shared cluster, driver "pgx"). The test
// package registers the drivers it uses (modernc.org/sqlite, pgx's
// stdlib).
package sqltest

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// Backend opens fresh databases of one kind.
type Backend struct {
	Name string
	dsn  func(t testing.TB) (driver, dsn string)
}

// Backends are SQLite and PostgreSQL on cluster, in that order.
func Backends(cluster *pgtest.Shared) []Backend {
	return []Backend{
		{"sqlite", func(t testing.TB) (string, string) {
			path := filepath.Join(t.TempDir(), "test.db")
			// WAL, a busy time-out and IMMEDIATE write transactions, as
			// a server's SQLite pool has them.
			return "sqlite", "file:" + (&url.URL{Path: path}).EscapedPath() +
				"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
		}},
		{"postgres", func(t testing.TB) (string, string) { return "pgx", cluster.DB(t) }},
	}
}

// Open opens a pool on a fresh database, closed when t ends (if the
// test did not close it).
func (b Backend) Open(t testing.TB) *sql.DB {
	db, _ := b.OpenTwice(t)
	return db
}

// OpenTwice opens a pool on a fresh database, and returns what opens
// another pool on the same database.
func (b Backend) OpenTwice(t testing.TB) (db *sql.DB, reopen func() *sql.DB) {
	t.Helper()
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
