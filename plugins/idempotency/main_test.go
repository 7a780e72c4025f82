package idempotency_test

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"

	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/internal/sqltest"
)

// TestMain fails the package if a test leaves a goroutine behind (a
// pool's connection, a server), and stops the PostgreSQL cluster the
// tests shared, if one started.
func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// cluster is one PostgreSQL cluster for the package.
var cluster pgtest.Shared

// backends are SQLite and PostgreSQL.
var backends = sqltest.Backends(&cluster)

func openSQLite(t testing.TB) *sql.DB { return backends[0].Open(t) }
