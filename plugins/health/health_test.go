package health_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/health"
)

// dependency is a fake dependency whose check fails while err is set.
type dependency struct {
	err atomic.Pointer[error]
}

func (d *dependency) fail(err error) { d.err.Store(&err) }
func (d *dependency) ping(context.Context) error {
	if p := d.err.Load(); p != nil {
		return *p
	}
	return nil
}

// server registers a "db" and a "redis" plugin, each registering its
// check, and the probes at the root.
func server(t *testing.T, db, cache *dependency, opts ...health.CheckOption) (*app.Server, *health.Checks) {
	t.Helper()
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(func(s *app.Server) error {
		return s.Register(checks.Check("db", db.ping, opts...))
	}, app.Name("db"))
	s.Register(func(s *app.Server) error {
		return s.Register(checks.Check("redis", cache.ping, opts...))
	}, app.Name("redis"))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	return s, checks
}

// eventually waits until readiness answers status.
func eventually(t *testing.T, s *app.Server, status int) *apptest.Response {
	t.Helper()
	var last *apptest.Response
	require.Eventually(t, func() bool {
		last = apptest.Get(t, s, "/readyz")
		return last.StatusCode == status
	}, 10*time.Second, 5*time.Millisecond)
	return last
}

func TestReadinessFollowsTheChecks(t *testing.T) {
	t.Parallel()
	db, cache := &dependency{}, &dependency{}
	s, _ := server(t, db, cache, health.Interval(5*time.Millisecond))
	r := eventually(t, s, http.StatusOK)
	assert.JSONEq(t, `{"status":"ready","checks":{"db":"ok","redis":"ok"}}`, r.Body)
	assert.Equal(t, "no-store", r.Header.Get("Cache-Control"))

	cache.fail(errors.New("dial tcp 127.0.0.1:6379: connect: connection refused"))
	r = eventually(t, s, http.StatusServiceUnavailable)
	assert.JSONEq(t, `{"status":"failing","checks":{"db":"ok","redis":"dial tcp 127.0.0.1:6379: connect: connection refused"}}`, r.Body)
	live := apptest.Get(t, s, "/healthz")
	assert.Equal(t, http.StatusOK, live.StatusCode, "liveness ignores the dependencies")
	assert.JSONEq(t, `{"status":"ok"}`, live.Body)

	cache.err.Store(nil)
	eventually(t, s, http.StatusOK)
}

func TestHeadProbes(t *testing.T) {
	t.Parallel()
	db, cache := &dependency{}, &dependency{}
	cache.fail(errors.New("down"))
	s, _ := server(t, db, cache, health.Interval(5*time.Millisecond))
	eventually(t, s, http.StatusServiceUnavailable)
	r := apptest.Do(t, s, http.MethodHead, "/readyz", nil)
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	assert.Empty(t, r.Body)
	r = apptest.Do(t, s, http.MethodHead, "/healthz", nil)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Empty(t, r.Body)
}

func TestCheckIsPendingUntilItsFirstRunEnds(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(checks.Check("slow", func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, health.Timeout(time.Hour)))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	r := apptest.Get(t, s, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode, "a probe never waits for a check")
	assert.JSONEq(t, `{"status":"failing","checks":{"slow":"pending"}}`, r.Body)
	close(release)
	eventually(t, s, http.StatusOK)
}

func TestCheckTimeOutAndPanic(t *testing.T) {
	t.Parallel()
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(checks.Check("hangs", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}, health.Timeout(time.Millisecond)))
	s.Register(checks.Check("panics", func(context.Context) error { panic("boom") }))
	s.Register(checks.Check("verbose", func(context.Context) error { return errors.New(strings.Repeat("x", 10000)) }))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	require.NoError(t, checks.Wait(context.Background()))
	report, ready := checks.Report()
	assert.False(t, ready)
	assert.Equal(t, "check timed out after 1ms: context deadline exceeded", report.Checks["hangs"])
	assert.Equal(t, "check panicked: boom", report.Checks["panics"])
	assert.Len(t, report.Checks["verbose"], 256+len("…"), "a long error is cut")
}

func TestProbesOnAnAdminServer(t *testing.T) {
	t.Parallel()
	checks := health.New()
	db := &dependency{}
	db.fail(errors.New("db down"))
	public := apptest.New(t, app.WithoutRequestLogging())
	public.Register(checks.Check("db", db.ping, health.Interval(time.Millisecond)))
	public.Get("/", func() (string, error) { return "hi", nil })
	require.NoError(t, public.Ready())
	admin := apptest.New(t, app.WithoutRequestLogging())
	admin.Register(checks.Routes())
	require.NoError(t, admin.Ready())

	assert.Equal(t, http.StatusNotFound, apptest.Get(t, public, "/readyz").StatusCode, "not on the public port")
	require.NoError(t, checks.Wait(context.Background()))
	r := apptest.Get(t, admin, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	assert.JSONEq(t, `{"status":"failing","checks":{"db":"db down"}}`, r.Body)

	db.err.Store(nil)
	eventually(t, admin, http.StatusOK)
	require.NoError(t, public.Close(context.Background()))
	r = apptest.Get(t, admin, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode, "the public server closing fails readiness on the admin one")
	assert.JSONEq(t, `{"status":"failing","checks":{"db":"ok","server":"closing"}}`, r.Body)
}

func TestClosingFailsReadiness(t *testing.T) {
	t.Parallel()
	checks := health.New()
	s := app.New(app.WithoutRequestLogging())
	s.Register(checks.Check("db", func(context.Context) error { return nil }, health.Interval(time.Millisecond)))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	require.Eventually(t, func() bool { _, ok := checks.Report(); return ok }, 10*time.Second, time.Millisecond)
	require.NoError(t, s.Close(context.Background()))
	report, ready := checks.Report()
	assert.False(t, ready)
	assert.Equal(t, "closing", report.Checks["server"])
}

func TestInvalidChecks(t *testing.T) {
	t.Parallel()
	checks := health.New()
	ping := func(context.Context) error { return nil }
	tests := []struct {
		name   string
		plugin *app.Plugin
		want   string
	}{
		{"no name", checks.Check("", ping), "needs a name"},
		{"nil function", checks.Check("a", nil), "nil function"},
		{"zero interval", checks.Check("a", ping, health.Interval(0)), "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := app.New().Register(tt.plugin)
			assert.ErrorContains(t, err, tt.want)
		})
	}

	s := app.New()
	s.Register(func(s *app.Server) error { return s.Register(checks.Check("db", ping)) }, app.Name("a"))
	s.Register(func(s *app.Server) error { return s.Register(checks.Check("db", ping)) }, app.Name("b"))
	err := s.Ready()
	assert.ErrorIs(t, err, health.ErrDuplicateCheck)
	require.NoError(t, s.Close(context.Background()))
}

func TestHungCheckFailsReadiness(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	hang := make(chan struct{})
	defer close(hang)
	checks := health.New()
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(checks.Check("db", func(context.Context) error {
		if calls.Add(1) == 1 {
			return nil
		}
		<-hang // ignores its context, as a driver without deadlines does
		return nil
	}, health.Interval(5*time.Millisecond), health.Timeout(10*time.Millisecond)))
	s.Register(checks.Routes())
	require.NoError(t, s.Ready())
	require.NoError(t, checks.Wait(context.Background()))
	r := eventually(t, s, http.StatusServiceUnavailable)
	assert.JSONEq(t, `{"status":"failing","checks":{"db":"check timed out after 10ms: context deadline exceeded"}}`, r.Body)
	assert.Equal(t, int32(2), calls.Load(), "no new run starts while one hangs")
}

func TestHungCheckDoesNotHoldClose(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	defer close(hang)
	checks := health.New()
	s := app.New(app.WithoutRequestLogging())
	s.Register(checks.Check("db", func(context.Context) error { <-hang; return nil }, health.Timeout(10*time.Millisecond)))
	require.NoError(t, s.Ready())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }()
	select {
	case err := <-closed:
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, `check "db" still running at close`)
	case <-time.After(10 * time.Second):
		t.Fatal("Close(ctx) still waiting 10s after its 50ms deadline")
	}
}
