package river_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

// The cost of enqueueing in the request's transaction, and the rate of
// one worker, on a throwaway PostgreSQL. The timings are the lead's to
// run on a quiet machine:
//
//	cd plugins/river && go test -run '^$' -bench '^Benchmark' -benchmem -count 6 .
//
// BenchmarkPostInTransaction compares a POST that writes a row in the
// request's transaction with one that also inserts a job there (into a
// queue no instance works, so that working it is not measured).
// BenchmarkOneWorker reports jobs/s through a single worker, insertion
// included.

type itemBody struct {
	Name string `json:"name" validate:"required"`
}

type createItem struct {
	app.In
	Tx   pgx.Tx
	Jobs *jobs.Jobs[pgx.Tx]
	Job  bool     `query:"job"`
	Body itemBody `body:""`
}

func BenchmarkPostInTransaction(b *testing.B) {
	pool := pgPool(b)
	ctx := context.Background()
	_, err := pool.Exec(ctx, "CREATE TABLE items (id bigserial PRIMARY KEY, name text NOT NULL)")
	require.NoError(b, err)
	j := pgJobs(pool, testConfig())
	s := app.New(app.WithoutRequestLogging())
	require.NoError(b, s.Decorate(pool))
	require.NoError(b, s.ProvideRequest(app.Provider(beginTx)))
	require.NoError(b, s.Register(j.Plugin()))
	require.NoError(b, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(context.Context, *river.Job[mailArgs], struct{}) error { return nil })
	}))
	unworked := &river.InsertOpts{Queue: "unworked"}
	require.NoError(b, app.Post(s, "/items", func(ctx context.Context, in createItem) (string, error) {
		if _, err := in.Tx.Exec(ctx, "INSERT INTO items (name) VALUES ($1)", in.Body.Name); err != nil {
			return "", err
		}
		if in.Job {
			if _, err := in.Jobs.InsertTx(ctx, in.Tx, mailArgs{To: "a@example.com"}, unworked); err != nil {
				return "", err
			}
		}
		return "ok", nil
	}))
	require.NoError(b, s.Ready())
	b.Cleanup(func() { _ = s.Close(context.Background()) })

	for _, bc := range []struct{ name, target string }{
		{"without job", "/items"},
		{"with job", "/items?job=true"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest("POST", bc.target, strings.NewReader(`{"name":"milk"}`))
				req.Header.Set("Content-Type", "application/json")
				res, err := s.Inject(req)
				if err != nil || res.StatusCode != 200 {
					b.Fatalf("POST %s: %v %v", bc.target, res.StatusCode, err)
				}
			}
		})
	}
}

func BenchmarkOneWorker(b *testing.B) {
	pool := pgPool(b)
	ctx := context.Background()
	cfg := testConfig()
	cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}
	j := pgJobs(pool, cfg)
	done := make(chan struct{}, 1024)
	s := app.New(app.WithoutRequestLogging())
	require.NoError(b, s.Register(j.Plugin()))
	require.NoError(b, s.Register(func(c *app.Server) error {
		return jobs.Work(j, c, func(context.Context, *river.Job[mailArgs], struct{}) error {
			done <- struct{}{}
			return nil
		})
	}))
	require.NoError(b, s.Ready())
	b.Cleanup(func() { _ = s.Close(context.Background()) })

	b.ResetTimer()
	failed := make(chan error, 1)
	go func() {
		batch := make([]river.InsertManyParams, 0, 500)
		for i := range b.N {
			batch = append(batch, river.InsertManyParams{Args: mailArgs{To: "a@example.com"}})
			if len(batch) == cap(batch) || i == b.N-1 {
				if _, err := j.Client().InsertMany(ctx, batch); err != nil {
					failed <- err
					return
				}
				batch = batch[:0]
			}
		}
	}()
	for range b.N {
		select {
		case <-done:
		case err := <-failed:
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
