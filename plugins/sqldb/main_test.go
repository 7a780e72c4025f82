package sqldb_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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

// backend opens fresh databases of one kind: "sqlite" (a file in a
// temporary directory) or "postgres" (a database of its own on the
// package's cluster). A pool is closed when the test ends, if the test
// did not.
type backend struct {
	name string
	dsn  func(t testing.TB) (driver, dsn string) // a fresh database
}

// open opens a pool on a fresh database.
func (b backend) open(t testing.TB) *sql.DB {
	db, _ := b.openTwice(t)
	return db
}

// openTwice opens a pool on a fresh database, and returns what opens
// another on the same one.
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
	{"sqlite", func(t testing.TB) (string, string) {
		path := filepath.Join(t.TempDir(), "test.db")
		return "sqlite", "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	}},
	{"postgres", func(t testing.TB) (string, string) { return "pgx", cluster.DB(t) }},
}

func openSQLite(t testing.TB) *sql.DB   { return backends[0].open(t) }
func openPostgres(t testing.TB) *sql.DB { return backends[1].open(t) }
