package river_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

type mailArgs struct {
	To string `json:"to" validate:"required,format=email"`
}

func (mailArgs) Kind() string { return "mail" }

// outbox is a service a worker needs.
type outbox struct{ sent chan string }

type mailDeps struct {
	app.In
	Outbox *outbox
}

func sendMail(_ context.Context, job *river.Job[mailArgs], deps mailDeps) error {
	deps.Outbox.sent <- job.Args.To
	return nil
}

func TestWorkerNeedingSiblingServiceFailsReady(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := app.New()
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return c.Decorate(&outbox{})
	}, app.Name("mail")))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, sendMail)
	}, app.Name("workers")))
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `worker of "mail": river_test.mailDeps in root > workers: `+
		`needs service *river_test.outbox, which is only provided in sibling context root > mail`)
	assert.Nil(t, j.Client(), "no client starts when a worker cannot be built")
	require.NoError(t, s.Close(context.Background()))
}

func TestWorkerOutsideTheJobsContextIsRefused(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := app.New()
	require.NoError(t, s.Register(func(c *app.Server) error { return c.Register(j.Plugin()) }, app.Name("jobs")))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, sendMail)
	}, app.Name("workers")))
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the jobs plugin is not visible here")
	require.NoError(t, s.Close(context.Background()))
}

// txIn and beginTx are the request-scoped transaction of
// docs/request-scope.md, over pgx.
type txIn struct {
	app.In
	Pool *pgxpool.Pool
}

func beginTx(ctx context.Context, in txIn) (pgx.Tx, func(failed bool) error, error) {
	tx, err := in.Pool.Begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	return tx, func(failed bool) error {
		if failed {
			return tx.Rollback(context.Background())
		}
		return tx.Commit(context.Background())
	}, nil
}

type signup struct {
	app.In
	Tx   pgx.Tx
	Jobs *jobs.Jobs[pgx.Tx]
	Body struct {
		Email string `json:"email"`
		Fail  bool   `json:"fail"`
	} `body:""`
}

func TestFailedRequestEnqueuesNothing(t *testing.T) {
	t.Parallel()
	pool := pgPool(t)
	j := pgJobs(pool, testConfig())
	box := &outbox{sent: make(chan string, 4)}
	s := mailServer(t, j, box)
	require.NoError(t, s.Decorate(pool))
	require.NoError(t, s.ProvideRequest(app.Provider(beginTx)))
	require.NoError(t, app.Post(s, "/signup", func(ctx context.Context, in signup) (int64, error) {
		res, err := in.Jobs.InsertTx(ctx, in.Tx, mailArgs{To: in.Body.Email}, nil)
		if err != nil {
			return 0, err
		}
		if in.Body.Fail {
			return 0, httpx.NewError(409, "TAKEN", "email already used")
		}
		return res.Job.ID, nil
	}))
	closeServer(t, s)
	events, cancel := mustSubscribe(t, s, j, river.EventKindJobCompleted)
	defer cancel()

	post := func(body string) *http.Response {
		req := httptest.NewRequest("POST", "/signup", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := s.Inject(req)
		require.NoError(t, err)
		return res
	}
	res := post(`{"email":"a@example.com","fail":true}`)
	assert.Equal(t, 409, res.StatusCode)
	list, err := j.Client().JobList(context.Background(), river.NewJobListParams())
	require.NoError(t, err)
	assert.Empty(t, list.Jobs, "a failed request enqueues nothing")

	res = post(`{"email":"not an address"}`)
	assert.Equal(t, 400, res.StatusCode, "arguments are validated as request input")
	list, err = j.Client().JobList(context.Background(), river.NewJobListParams())
	require.NoError(t, err)
	assert.Empty(t, list.Jobs)

	res = post(`{"email":"b@example.com"}`)
	require.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "b@example.com", <-box.sent)
	ev := waitEvent(t, events, jobID(t, res), func(*river.Event) bool { return true })
	assert.Equal(t, rivertype.JobStateCompleted, ev.Job.State)
}

func TestPanickingJobIsRetriedThenDiscarded(t *testing.T) {
	t.Parallel()
	pool := pgPool(t)
	j := pgJobs(pool, testConfig())
	attempts := make(chan int, 4)
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(_ context.Context, job *river.Job[mailArgs], _ struct{}) error {
			attempts <- job.Attempt
			panic("the mail server is on fire")
		})
	}))
	require.NoError(t, s.Ready())
	closeServer(t, s)
	events, cancel := mustSubscribe(t, s, j, river.EventKindJobFailed)
	defer cancel()

	res, err := j.Client().Insert(context.Background(), mailArgs{To: "a@example.com"}, &river.InsertOpts{MaxAttempts: 2})
	require.NoError(t, err)
	first := waitEvent(t, events, res.Job.ID, func(*river.Event) bool { return true })
	// Retried at once (the test's policy), the job is available again
	// rather than retryable: either way, not discarded.
	assert.Contains(t, []rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateAvailable}, first.Job.State,
		"a panic is retried")
	last := waitEvent(t, events, res.Job.ID, func(ev *river.Event) bool { return ev.Job.State == rivertype.JobStateDiscarded })
	assert.Equal(t, 2, last.Job.Attempt)
	require.Len(t, last.Job.Errors, 2)
	assert.Contains(t, last.Job.Errors[1].Error, "the mail server is on fire")
	assert.Equal(t, 1, <-attempts)
	assert.Equal(t, 2, <-attempts)
}

func TestCloseLetsRunningJobFinish(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	j := sqliteJobs(db, testConfig())
	started, release := make(chan struct{}), make(chan struct{})
	var cancelled error
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Register(j.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(ctx context.Context, _ *river.Job[mailArgs], _ struct{}) error {
			close(started)
			<-release
			cancelled = ctx.Err()
			return nil
		})
	}))
	closing := make(chan struct{})
	require.NoError(t, s.PreClose(func(context.Context) error { close(closing); return nil }))
	require.NoError(t, s.Ready())
	res, err := j.Client().Insert(context.Background(), mailArgs{To: "a@example.com"}, nil)
	require.NoError(t, err)
	<-started

	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		closed <- s.Close(ctx)
	}()
	<-closing
	close(release) // the job finishes while Close waits for it
	require.NoError(t, <-closed)
	assert.NoError(t, cancelled, "the job had the drain deadline to finish")

	// The job completed: a new client on the same database sees it so.
	var state string
	require.NoError(t, db.QueryRow("SELECT state FROM river_job WHERE id = ?", res.Job.ID).Scan(&state))
	assert.Equal(t, "completed", state)
}

func TestJobOfKilledInstanceIsPickedUp(t *testing.T) {
	t.Parallel()
	pool := pgPool(t)
	ctx := context.Background()

	// The first instance inserts a job and dies while working it: its
	// row stays running, attempted by an instance that is gone.
	first := pgJobs(pool, testConfig())
	dead := app.New(app.WithoutRequestLogging())
	require.NoError(t, dead.Decorate(&outbox{sent: make(chan string, 1)}))
	require.NoError(t, dead.Register(first.Plugin()))
	require.NoError(t, dead.Register(func(c *app.Server) error { return jobs.Work(first, c, sendMail) }))
	require.NoError(t, dead.Ready())
	res, err := first.Client().Insert(ctx, mailArgs{To: "a@example.com"}, &river.InsertOpts{Queue: "paused"})
	require.NoError(t, err)
	require.NoError(t, dead.Close(ctx))
	_, err = pool.Exec(ctx, `UPDATE river_job SET state = 'running', queue = 'default', attempt = 1,
		attempted_at = now() - interval '2 hours', attempted_by = '{dead}' WHERE id = $1`, res.Job.ID)
	require.NoError(t, err)

	cfg := testConfig()
	cfg.RescueStuckJobsAfter = time.Minute
	second := pgJobs(pool, cfg)
	box := &outbox{sent: make(chan string, 1)}
	s := app.New(app.WithoutRequestLogging())
	require.NoError(t, s.Decorate(box))
	require.NoError(t, s.Register(second.Plugin()))
	require.NoError(t, s.Register(func(c *app.Server) error { return jobs.Work(second, c, sendMail) }))
	require.NoError(t, s.Ready())
	closeServer(t, s)
	assert.Equal(t, "a@example.com", <-box.sent, "another instance works the job")
}

func mustSubscribe[TTx any](t *testing.T, s *app.Server, j *jobs.Jobs[TTx], kinds ...river.EventKind) (<-chan *river.Event, func()) {
	t.Helper()
	require.NoError(t, s.Ready())
	c := j.Client()
	require.NotNil(t, c)
	return c.Subscribe(kinds...)
}

func jobID(t *testing.T, res *http.Response) int64 {
	t.Helper()
	var id int64
	require.NoError(t, json.NewDecoder(res.Body).Decode(&id))
	return id
}
