package river_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/internal/pgtest"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

// waitLimit bounds a wait on a condition; it is no measure of speed.
const waitLimit = 60 * time.Second

// sqliteDB opens a fresh SQLite database in the test's directory, on
// one connection as riversqlite advises.
func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "jobs.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// pgPool starts a throwaway PostgreSQL and opens a pool on it.
func pgPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pg := pgtest.Start(t)
	pool, err := pgxpool.New(context.Background(), pg.CreateDB(t, "jobs"))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// immediately retries a failed job at once, so tests wait on no backoff.
type immediately struct{}

func (immediately) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }

// testConfig is River's configuration for tests: quick polls, no backoff.
func testConfig() *river.Config {
	return &river.Config{
		FetchCooldown:     10 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		RetryPolicy:       immediately{},
		TestOnly:          true,
	}
}

func pgJobs(pool *pgxpool.Pool, cfg *river.Config) *jobs.Jobs[pgx.Tx] {
	return jobs.New(riverpgxv5.New(pool), cfg, jobs.MigrateAtStart())
}

func sqliteJobs(db *sql.DB, cfg *river.Config) *jobs.Jobs[*sql.Tx] {
	return jobs.New(riversqlite.New(db), cfg, jobs.MigrateAtStart())
}

// closeServer closes s when the test ends, with a deadline.
func closeServer(t *testing.T, s *app.Server) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		require.NoError(t, s.Close(ctx))
	})
}

// waitEvent waits for an event of job id that satisfies ok.
func waitEvent(t *testing.T, events <-chan *river.Event, id int64, ok func(*river.Event) bool) *river.Event {
	t.Helper()
	timeout := time.NewTimer(waitLimit)
	defer timeout.Stop()
	for {
		select {
		case ev := <-events:
			if ev.Job != nil && ev.Job.ID == id && ok(ev) {
				return ev
			}
		case <-timeout.C:
			t.Fatalf("no such event for job %d within %v", id, waitLimit)
			return nil
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
