package pgxdb_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/draintest"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/pgxdb"
)

const hangLimit = time.Minute

func createTable(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(t.Context(), `CREATE TABLE items (name TEXT PRIMARY KEY)`)
	require.NoError(t, err)
}

func count(t *testing.T, pool *pgxpool.Pool, name string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM items WHERE name = $1`, name).Scan(&n))
	return n
}

type insertIn struct {
	app.In
	Tx   pgx.Tx
	Rep  *httpx.Reply
	Name string `path:"name"`
}

func insert(ctx context.Context, in insertIn) error {
	_, err := in.Tx.Exec(ctx, `INSERT INTO items (name) VALUES ($1)`, in.Name)
	return err
}

// The request's transaction commits what a request that succeeds wrote,
// and rolls back what one that fails wrote.
func TestTransactionFollowsTheOutcome(t *testing.T) {
	t.Parallel()
	pool := open(t, database(t))
	createTable(t, pool)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(pgxdb.Plugin(pool, pgxdb.KeepOpen()))
	app.Post(s, "/ok/:name", func(ctx context.Context, in insertIn) (string, error) {
		return "created", insert(ctx, in)
	}, app.Status(http.StatusCreated))
	app.Post(s, "/error/:name", func(ctx context.Context, in insertIn) (string, error) {
		if err := insert(ctx, in); err != nil {
			return "", err
		}
		return "", httpx.NewError(http.StatusConflict, "TAKEN", "refused after the write")
	})
	app.Post(s, "/panic/:name", func(ctx context.Context, in insertIn) (string, error) {
		if err := insert(ctx, in); err != nil {
			return "", err
		}
		panic("after the write")
	})
	app.Post(s, "/status/:name", func(ctx context.Context, in insertIn) (string, error) {
		in.Rep.Code(http.StatusUnprocessableEntity)
		return "refused", insert(ctx, in)
	})
	require.NoError(t, s.Ready())
	tests := []struct {
		path, name string
		status     int
		kept       int
	}{
		{"/ok/a", "a", http.StatusCreated, 1},
		{"/error/b", "b", http.StatusConflict, 0},
		{"/panic/c", "c", http.StatusInternalServerError, 0},
		{"/status/d", "d", http.StatusUnprocessableEntity, 0},
	}
	for _, tt := range tests {
		res := apptest.Do(t, s, "POST", tt.path, nil)
		assert.Equal(t, tt.status, res.StatusCode, tt.path)
		assert.Equal(t, tt.kept, count(t, pool, tt.name), tt.path)
	}
}

// A request whose client goes away while its handler runs is rolled
// back, even when the handler then returns as if it succeeded.
func TestClientThatLeavesRollsBack(t *testing.T) {
	t.Parallel()
	pool := open(t, database(t))
	createTable(t, pool)
	wrote, ended := make(chan struct{}), make(chan struct{})
	s := app.New(app.WithoutRequestLogging())
	s.Register(pgxdb.Plugin(pool, pgxdb.KeepOpen()))
	app.Post(s, "/items/:name", func(ctx context.Context, in insertIn) (string, error) {
		if err := insert(ctx, in); err != nil {
			return "", err
		}
		close(wrote)
		<-ctx.Done()
		return "created", nil
	}, app.WithHook(app.OnResponse, func() { close(ended) }))
	base := apptest.Serve(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/items/gone", nil)
	require.NoError(t, err)
	go func() {
		<-wrote
		cancel()
	}()
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	select {
	case <-ended:
	case <-time.After(hangLimit):
		t.Fatal("the request did not end")
	}
	assert.Equal(t, 0, count(t, pool, "gone"))
}

// The pool stays open while a request is drained, and is closed once the
// server is.
func TestPoolClosesAfterTheDrain(t *testing.T) {
	t.Parallel()
	cfg := database(t)
	pool, other := open(t, cfg), open(t, cfg)
	createTable(t, pool)
	started, release := make(chan struct{}), make(chan struct{})
	s := app.New(app.WithoutRequestLogging())
	s.Register(pgxdb.Plugin(pool))
	type drainIn struct {
		insertIn
		Pool *pgxpool.Pool
	}
	app.Post(s, "/items/:name", func(ctx context.Context, in drainIn) (string, error) {
		close(started)
		<-release
		if err := in.Pool.Ping(ctx); err != nil {
			return "", err
		}
		return "created", insert(ctx, in.insertIn)
	}, app.Status(http.StatusCreated))
	status, closed := draintest.InFlight(t, s, "/items/late", started)
	close(release)
	assert.Equal(t, http.StatusCreated, <-status)
	require.NoError(t, <-closed)
	assert.Error(t, pool.Ping(t.Context()), "closed")
	assert.Equal(t, 1, count(t, other, "late"))
}

// Tracer makes a span of each query of the request's transaction, and
// Metrics reports the pool; the check pings it.
func TestTracerMetricsAndCheck(t *testing.T) {
	t.Parallel()
	cfg := database(t)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	cfg.ConnConfig.Tracer = pgxdb.Tracer(tp)
	cfg.MaxConns = 7
	pool := open(t, cfg)
	createTable(t, pool)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(pgxdb.Plugin(pool, pgxdb.KeepOpen(), pgxdb.Metrics(mp, "main"), pgxdb.Check(checks, "postgres")))
	s.Register(checks.Routes())
	app.Post(s, "/items/:name", func(ctx context.Context, in insertIn) (string, error) {
		return "created", insert(ctx, in)
	})
	require.NoError(t, s.Ready())
	require.Equal(t, http.StatusOK, apptest.Do(t, s, "POST", "/items/a", nil).StatusCode)

	var names []string
	for _, sp := range spans.Ended() {
		names = append(names, sp.Name())
		if sp.Name() == "INSERT" {
			assert.Contains(t, sp.Attributes(), attributeOf("db.query.text", `INSERT INTO items (name) VALUES ($1)`))
		}
	}
	assert.Subset(t, names, []string{"BEGIN", "INSERT", "COMMIT"})

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	var max int64 = -1
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "db.client.connection.max" {
				if sum, ok := m.Data.(metricdata.Sum[int64]); ok && len(sum.DataPoints) == 1 {
					max = sum.DataPoints[0].Value
				}
			}
		}
	}
	assert.Equal(t, int64(7), max)

	require.NoError(t, checks.Wait(t.Context()))
	assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/readyz").StatusCode)
	require.NoError(t, s.Close(t.Context()))
	assert.NoError(t, pool.Ping(t.Context()), "KeepOpen")
}

func attributeOf(k, v string) attribute.KeyValue { return attribute.String(k, v) }

// A nil pool fails Ready.
func TestNilPool(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(pgxdb.Plugin(nil))
	assert.ErrorContains(t, s.Ready(), "needs a *pgxpool.Pool, not nil")
}
