package river_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

// mailServer registers j and a mail worker over box in a child context.
func mailServer[TTx any](t *testing.T, j *jobs.Jobs[TTx], box *outbox) *app.Server {
	t.Helper()
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		if err := c.Decorate(box); err != nil {
			return err
		}
		return jobs.Work(j, c, sendMail)
	}, app.Name("mail")))
	return s
}

func TestPeriodicJobDeclaredInAContextRuns(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	box := &outbox{sent: make(chan string, 1)}
	s := mailServer(t, j, box)
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Periodic(j, c, river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
			return mailArgs{To: "digest@example.com"}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true})
	}, app.Name("digest")))
	require.NoError(t, s.Ready())
	closeServer(t, s)
	assert.Equal(t, "digest@example.com", <-box.sent)
}

func TestDeclaringAfterReadyIsRefused(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 1)})
	require.NoError(t, s.Ready())
	closeServer(t, s)
	err := jobs.Periodic(j, s, river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
		return mailArgs{To: "a@example.com"}, nil
	}, nil)
	require.ErrorIs(t, err, jobs.ErrStarted)
}

func TestUniqueJobIsInsertedOnce(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	j := sqliteJobs(db, testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 2)})
	require.NoError(t, s.Ready())
	closeServer(t, s)

	ctx := context.Background()
	unique := &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}, ScheduledAt: time.Now().Add(time.Hour)}
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	first, err := j.InsertTx(ctx, tx, mailArgs{To: "a@example.com"}, unique)
	require.NoError(t, err)
	second, err := j.InsertTx(ctx, tx, mailArgs{To: "a@example.com"}, unique)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	assert.False(t, first.UniqueSkippedAsDuplicate)
	assert.True(t, second.UniqueSkippedAsDuplicate)
	assert.Equal(t, first.Job.ID, second.Job.ID)
}

// sqlTxIn and beginSQLTx are the request-scoped transaction of
// docs/request-scope.md, over database/sql.
type sqlTxIn struct {
	app.In
	DB *sql.DB
}

func beginSQLTx(ctx context.Context, in sqlTxIn) (*sql.Tx, func(failed bool) error, error) {
	tx, err := in.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return tx, func(failed bool) error {
		if failed {
			return tx.Rollback()
		}
		return tx.Commit()
	}, nil
}

type cancelJob struct {
	app.In
	Tx   *sql.Tx
	Jobs *jobs.Jobs[*sql.Tx]
	ID   int64 `path:"id" validate:"min=1"`
}

func TestHandlerCancelsJob(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	j := sqliteJobs(db, testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 1)})
	require.NoError(t, s.Decorate(db))
	require.NoError(t, s.ProvideRequest(app.Provider(beginSQLTx)))
	require.NoError(t, app.Delete(s, "/jobs/:id", func(ctx context.Context, in cancelJob) (string, error) {
		job, err := in.Jobs.Client().JobCancelTx(ctx, in.Tx, in.ID)
		if err != nil {
			return "", err
		}
		return string(job.State), nil
	}))
	require.NoError(t, s.Ready())
	closeServer(t, s)

	later, err := j.Client().Insert(context.Background(), mailArgs{To: "a@example.com"},
		&river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	res, err := s.Inject(httptest.NewRequest("DELETE", "/jobs/"+itoa(later.Job.ID), nil))
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode)
	job, err := j.Client().JobGet(context.Background(), later.Job.ID)
	require.NoError(t, err)
	assert.Equal(t, rivertype.JobStateCancelled, job.State)
}

func TestInvalidArgumentsAreCancelledNotRetried(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	box := &outbox{sent: make(chan string, 1)}
	s := mailServer(t, j, box)
	events, cancel := mustSubscribe(t, s, j, river.EventKindJobCancelled)
	defer cancel()
	closeServer(t, s)

	// Another producer, not InsertTx, wrote arguments the rules refuse.
	res, err := j.Client().Insert(context.Background(), mailArgs{To: "nobody"}, nil)
	require.NoError(t, err)
	ev := waitEvent(t, events, res.Job.ID, func(*river.Event) bool { return true })
	assert.Equal(t, rivertype.JobStateCancelled, ev.Job.State)
	require.NotEmpty(t, ev.Job.Errors)
	assert.Contains(t, ev.Job.Errors[0].Error, "args/to")
	assert.Empty(t, box.sent)
}

func TestCountByState(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 1)})
	ctx := context.Background()
	_, err := j.CountByState(ctx)
	require.ErrorIs(t, err, jobs.ErrNotStarted)
	require.NoError(t, s.Ready())
	closeServer(t, s)
	for range 2 {
		_, err := j.Client().Insert(ctx, mailArgs{To: "a@example.com"}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
		require.NoError(t, err)
	}
	counts, err := j.CountByState(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, counts[rivertype.JobStateScheduled])
	assert.Zero(t, counts[rivertype.JobStateAvailable])
}

func TestHealthy(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 1)})
	ctx := context.Background()
	require.ErrorIs(t, j.Healthy(ctx), jobs.ErrNotStarted)
	require.NoError(t, s.Ready())
	require.NoError(t, j.Healthy(ctx))
	require.NoError(t, s.Close(ctx))
	require.ErrorIs(t, j.Healthy(ctx), jobs.ErrNotStarted)
}

func TestCloseCancelsJobsPastItsDeadline(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	j := sqliteJobs(db, testConfig())
	started := make(chan struct{})
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(ctx context.Context, _ *river.Job[mailArgs], _ struct{}) error {
			close(started)
			<-ctx.Done() // a job longer than the drain
			return ctx.Err()
		})
	}))
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, s.PreClose(func(context.Context) error { cancel(); return nil })) // the deadline passes
	require.NoError(t, s.Ready())
	res, err := j.Client().Insert(context.Background(), mailArgs{To: "a@example.com"}, nil)
	require.NoError(t, err)
	<-started
	err = s.Close(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "were still running at Close's deadline and were cancelled")

	var state string
	require.NoError(t, db.QueryRow("SELECT state FROM river_job WHERE id = ?", res.Job.ID).Scan(&state))
	assert.Contains(t, []string{"available", "retryable"}, state, "the cancelled job stays queued for another instance")
}

type sentArgs struct {
	To string `json:"to" validate:"required"`
}

func (sentArgs) Kind() string { return "sent" }

type sentDeps struct {
	app.In
	Pool *pgxpool.Pool
}

// TestJobCompletesInItsOwnTransaction shows exactly-once effects on
// PostgreSQL: the job's write and its completion commit together.
func TestJobCompletesInItsOwnTransaction(t *testing.T) {
	t.Parallel()
	pool := pgPool(t)
	ctx := context.Background()
	j := pgJobs(pool, testConfig())
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Decorate(pool))
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(ctx context.Context, job *river.Job[sentArgs], deps sentDeps) error {
			return pgx.BeginFunc(ctx, deps.Pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "INSERT INTO sent (job, address) VALUES ($1, $2)", job.ID, job.Args.To); err != nil {
					return err
				}
				_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
				return err
			})
		})
	}))
	_, err := pool.Exec(ctx, "CREATE TABLE sent (job bigint PRIMARY KEY, address text NOT NULL)")
	require.NoError(t, err)
	events, cancel := mustSubscribe(t, s, j, river.EventKindJobCompleted)
	defer cancel()
	closeServer(t, s)

	res, err := j.Client().Insert(ctx, sentArgs{To: "a@example.com"}, nil)
	require.NoError(t, err)
	waitEvent(t, events, res.Job.ID, func(*river.Event) bool { return true })
	var address string
	require.NoError(t, pool.QueryRow(ctx, "SELECT address FROM sent WHERE job = $1", res.Job.ID).Scan(&address))
	assert.Equal(t, "a@example.com", address)
}
