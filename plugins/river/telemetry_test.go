package river_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/otel"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

type sqlSignup struct {
	app.In
	Tx   *sql.Tx
	Jobs *jobs.Jobs[*sql.Tx]
	Body mailArgs `body:""`
}

// TestJobSpanLinksToRequestSpan: with River's OpenTelemetry middleware,
// the span of a job's work links to the span of the request that
// inserted it.
func TestJobSpanLinksToRequestSpan(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	db := sqliteDB(t)
	cfg := testConfig()
	cfg.Middleware = []rivertype.Middleware{otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
		EnableTracePropagation: true, TracerProvider: tp,
	})}
	j := sqliteJobs(db, cfg)
	box := &outbox{sent: make(chan string, 1)}
	s := mailServer(t, j, box)
	require.NoError(t, s.Register(otel.Plugin(otel.TracerProvider(tp))))
	require.NoError(t, s.Decorate(db))
	require.NoError(t, s.ProvideRequest(app.Provider(beginSQLTx)))
	var requestSpan trace.SpanContext
	require.NoError(t, app.Post(s, "/signup", func(ctx context.Context, in sqlSignup) (int64, error) {
		requestSpan = trace.SpanContextFromContext(ctx)
		res, err := in.Jobs.InsertTx(ctx, in.Tx, in.Body, nil)
		if err != nil {
			return 0, err
		}
		return res.Job.ID, nil
	}))
	events, cancel := mustSubscribe(t, s, j, river.EventKindJobCompleted)
	defer cancel()
	closeServer(t, s)

	req := httptest.NewRequest("POST", "/signup", strings.NewReader(`{"to":"a@example.com"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Inject(req)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode)
	require.True(t, requestSpan.IsValid(), "the request has a span")
	waitEvent(t, events, jobID(t, res), func(*river.Event) bool { return true })

	var work sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if strings.HasPrefix(sp.Name(), "river.work") {
			work = sp
		}
	}
	require.NotNil(t, work, "the job's work is a span")
	require.NotEmpty(t, work.Links())
	linked := work.Links()[0].SpanContext
	assert.Equal(t, requestSpan.TraceID(), linked.TraceID(), "the job's span links into the request's trace")
	// The link is to the insertion's span, a child of the request's.
	var insert sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if sp.SpanContext().SpanID() == linked.SpanID() {
			insert = sp
		}
	}
	require.NotNil(t, insert)
	assert.Equal(t, requestSpan.SpanID(), insert.Parent().SpanID())
}
