package sqldb_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"go.uber.org/goleak"
	_ "modernc.org/sqlite" // registers "sqlite"

	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/internal/sqltest"
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

// backends are SQLite and PostgreSQL.
var backends = sqltest.Backends(&cluster)

func openSQLite(t testing.TB) *sql.DB   { return backends[0].Open(t) }
func openPostgres(t testing.TB) *sql.DB { return backends[1].Open(t) }
