package redisdb_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/draintest"
	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/redisdb"
)

type countIn struct {
	app.In
	Redis redis.UniversalClient
}

func incr(ctx context.Context, in countIn) (int64, error) {
	return in.Redis.Incr(ctx, "hits").Result()
}

// The client is a service handlers take, traced, measured and checked.
func TestClientIsAnInstrumentedService(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr})
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	checks := health.New()

	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(redisdb.Plugin(client, redisdb.Check(checks, "redis"), redisdb.Tracing(tp), redisdb.Metrics(mp, "cache")))
	s.Register(checks.Routes())
	app.Post(s, "/hits", incr)
	require.NoError(t, s.Ready())

	res := apptest.Do(t, s, "POST", "/hits", nil)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "1", res.Body)
	var names []string
	for _, sp := range spans.Ended() {
		names = append(names, sp.Name())
	}
	assert.Contains(t, names, "incr")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	var metrics []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			metrics = append(metrics, m.Name)
		}
	}
	assert.Contains(t, metrics, "db.client.connections.usage")

	require.NoError(t, checks.Wait(t.Context()))
	assert.Equal(t, http.StatusOK, apptest.Get(t, s, "/readyz").StatusCode)
}

// The client stays open while a request is drained, and is closed once
// the server is.
func TestClientClosesAfterTheDrain(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr})
	started, release := make(chan struct{}), make(chan struct{})
	s := app.New(app.WithoutRequestLogging())
	s.Register(redisdb.Plugin(client))
	app.Post(s, "/hits", func(ctx context.Context, in countIn) (int64, error) {
		close(started)
		<-release
		return incr(ctx, in)
	})
	status, closed := draintest.InFlight(t, s, "/hits", started)
	close(release)
	assert.Equal(t, http.StatusOK, <-status)
	require.NoError(t, <-closed)
	assert.ErrorIs(t, client.Ping(t.Context()).Err(), redis.ErrClosed)
}

// A nil client fails Ready.
func TestNilClient(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(redisdb.Plugin(nil))
	assert.ErrorContains(t, s.Ready(), "needs a *redis.Client, not nil")
}
