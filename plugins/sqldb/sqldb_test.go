package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/draintest"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/sqldb"
)

// hangLimit is how long a step may take before the test calls it a hang.
const hangLimit = time.Minute

func createTable(t *testing.T, db *sql.DB) {
	t.Helper()
	_, err := db.Exec(`CREATE TABLE items (name TEXT PRIMARY KEY)`)
	require.NoError(t, err)
}

func count(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM items WHERE name = $1`, name).Scan(&n))
	return n
}

type insertIn struct {
	app.In
	Tx   *sql.Tx
	Name string `path:"name"`
}

func insert(ctx context.Context, in insertIn) error {
	_, err := in.Tx.ExecContext(ctx, `INSERT INTO items (name) VALUES ($1)`, in.Name)
	return err
}

// inserted is insert as a typed handler.
func inserted(ctx context.Context, in insertIn) (string, error) { return "inserted", insert(ctx, in) }

// The request's transaction commits what a request that succeeds wrote,
// and rolls back what one that fails wrote: an error, a panic, a status
// of 400 or more, a reply that a send hook fails.
func TestTransactionFollowsTheOutcome(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			createTable(t, db)
			s := apptest.New(t, app.WithoutRequestLogging())
			s.Register(sqldb.Plugin(db))
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
			type statusIn struct {
				insertIn
				Rep *httpx.Reply
			}
			app.Post(s, "/status/:name", func(ctx context.Context, in statusIn) (string, error) {
				in.Rep.Code(http.StatusUnprocessableEntity)
				return "refused", insert(ctx, in.insertIn)
			})
			app.Post(s, "/send/:name", func(ctx context.Context, in insertIn) (string, error) {
				return "never sent", insert(ctx, in)
			}, app.WithHook(app.OnSend, func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error) {
				return nil, errors.New("the send hook fails")
			}))
			require.NoError(t, s.Ready())

			tests := []struct {
				path   string
				status int
				kept   bool
			}{
				{"/ok/a", http.StatusCreated, true},
				{"/error/b", http.StatusConflict, false},
				{"/panic/c", http.StatusInternalServerError, false},
				{"/status/d", http.StatusUnprocessableEntity, false},
				{"/send/e", http.StatusInternalServerError, false},
			}
			for _, tt := range tests {
				res := apptest.Do(t, s, "POST", tt.path, nil)
				assert.Equal(t, tt.status, res.StatusCode, tt.path)
				name := tt.path[strings.LastIndexByte(tt.path, '/')+1:]
				want := 0
				if tt.kept {
					want = 1
				}
				assert.Equal(t, want, count(t, db, name), "rows of %s", tt.path)
			}
		})
	}
}

// A request whose client goes away while its handler runs is rolled
// back, even when the handler then returns as if it succeeded.
func TestClientThatLeavesRollsBack(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			createTable(t, db)
			wrote, ended := make(chan struct{}), make(chan struct{})
			s := app.New(app.WithoutRequestLogging())
			s.Register(sqldb.Plugin(db))
			app.Post(s, "/items/:name", func(ctx context.Context, in insertIn) (string, error) {
				if err := insert(ctx, in); err != nil {
					return "", err
				}
				close(wrote)
				<-ctx.Done() // the client is gone
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
			assert.Equal(t, 0, count(t, db, "gone"))
		})
	}
}

// The pool stays open while a request is being drained, so that its
// handler and its commit go through, and is closed once the server is.
func TestPoolClosesAfterTheDrain(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db, reopen := b.OpenTwice(t)
			createTable(t, db)
			started, release := make(chan struct{}), make(chan struct{})
			s := app.New(app.WithoutRequestLogging())
			s.Register(sqldb.Plugin(db))
			type drainIn struct {
				insertIn
				DB *sql.DB
			}
			app.Post(s, "/items/:name", func(ctx context.Context, in drainIn) (string, error) {
				close(started)
				<-release
				if err := in.DB.PingContext(ctx); err != nil { // the service, still open
					return "", err
				}
				return "created", insert(ctx, in.insertIn)
			}, app.Status(http.StatusCreated))
			status, closed := draintest.InFlight(t, s, "/items/late", started)
			close(release)
			assert.Equal(t, http.StatusCreated, <-status)
			require.NoError(t, <-closed)
			assert.ErrorContains(t, db.Ping(), "database is closed")

			other := reopen()
			assert.Equal(t, 1, count(t, other, "late"), "the drained request committed")
		})
	}
}

// A handler that outlives Close's context keeps the pool open until its
// transaction ends: Close says so, and the pool closes after it.
func TestPoolOutlivesAnUnfinishedHandler(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	createTable(t, db)
	started, release, pinged := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	s := app.New(app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db))
	app.Post(s, "/items/:name", func(ctx context.Context, in insertIn) (string, error) {
		close(started)
		<-release
		pinged <- db.PingContext(context.Background())
		return "created", nil
	})
	base := apptest.Serve(t, s)
	go func() {
		res, err := http.Post(base+"/items/x", "", nil)
		if err == nil {
			res.Body.Close()
		}
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Close(ctx)
	require.ErrorContains(t, err, "transactions still open")
	assert.NoError(t, db.Ping(), "open while the handler runs")
	close(release)
	assert.NoError(t, <-pinged)
	require.Eventually(t, func() bool { return db.Ping() != nil }, hangLimit, 10*time.Millisecond)
}

// The readiness check pings the pool.
func TestCheckPingsThePool(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.Check(checks, "db"), sqldb.KeepOpen()))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	require.NoError(t, checks.Wait(t.Context()))
	res := apptest.Get(t, s, "/readyz")
	assert.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	assert.NoError(t, db.Ping(), "KeepOpen leaves the pool open")
}

// ReadOnlyReads begins GET requests' transactions read-only: a write in
// one fails and nothing is kept.
func TestReadOnlyReads(t *testing.T) {
	t.Parallel()
	db := openPostgres(t)
	createTable(t, db)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.TxOptions(sqldb.ReadOnlyReads)))
	app.Get(s, "/items/:name", inserted)
	app.Post(s, "/items/:name", inserted)
	require.NoError(t, s.Ready())
	assert.Equal(t, http.StatusInternalServerError, apptest.Do(t, s, "GET", "/items/r", nil).StatusCode)
	assert.Equal(t, http.StatusOK, apptest.Do(t, s, "POST", "/items/w", nil).StatusCode)
	assert.Equal(t, 0, count(t, db, "r"))
	assert.Equal(t, 1, count(t, db, "w"))
}

// Metrics reports the pool's connections.
func TestMetrics(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	db.SetMaxOpenConns(3)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.Metrics(mp, "main")))
	require.NoError(t, s.Ready())
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range sum.DataPoints {
					if st, ok := dp.Attributes.Value("db.client.connection.state"); ok {
						got[m.Name+"/"+st.AsString()] = dp.Value
					} else {
						got[m.Name] = dp.Value
					}
				}
			}
		}
	}
	assert.Equal(t, int64(3), got["db.client.connection.max"])
	assert.Contains(t, got, "db.client.connection.count/idle")
	require.NoError(t, s.Close(t.Context()))
	rm = metricdata.ResourceMetrics{}
	require.NoError(t, reader.Collect(t.Context(), &rm))
	for _, sm := range rm.ScopeMetrics {
		assert.Empty(t, sm.Metrics, "unregistered at Close")
	}
}

// The check's options reach the check.
func TestCheckOptions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(openSQLite(t), sqldb.Check(health.New(), "db", health.Interval(0)), sqldb.KeepOpen()))
	assert.ErrorContains(t, s.Ready(), "interval and time-out must be positive")
}

// Tracing makes a span of each request's transaction, saying how it
// ended.
func TestTracing(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	createTable(t, db)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.Tracing(tp)))
	app.Post(s, "/items/:name", func(ctx context.Context, in insertIn) (string, error) {
		if err := insert(ctx, in); err != nil {
			return "", err
		}
		if in.Name == "refused" {
			return "", httpx.NewError(http.StatusConflict, "REFUSED", "refused")
		}
		return "created", nil
	})
	require.NoError(t, s.Ready())
	require.Equal(t, http.StatusOK, apptest.Do(t, s, "POST", "/items/a", nil).StatusCode)
	require.Equal(t, http.StatusConflict, apptest.Do(t, s, "POST", "/items/refused", nil).StatusCode)
	var outcomes []string
	for _, sp := range spans.Ended() {
		require.Equal(t, "transaction", sp.Name())
		for _, kv := range sp.Attributes() {
			if kv.Key == "db.transaction.outcome" {
				outcomes = append(outcomes, kv.Value.AsString())
			}
		}
	}
	assert.Equal(t, []string{"commit", "rollback"}, outcomes)
}

// A nil pool fails Ready.
func TestNilPool(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(sqldb.Plugin(nil))
	assert.ErrorContains(t, s.Ready(), "needs a *sql.DB, not nil")
}
