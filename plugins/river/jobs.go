package river

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/slogzap"
)

// DefaultMaxWorkers is how many jobs of the default queue one instance
// works at once when the configuration names no queue.
const DefaultMaxWorkers = 100

// cancelGrace bounds how long Close waits, once its own deadline has
// passed, for running jobs to see their context cancelled and return.
// Jobs still running then are left to River's rescuer on another
// instance.
const cancelGrace = 5 * time.Second

// ErrNotStarted is returned by what needs the River client before Ready
// has started it (or after Close has stopped it).
var ErrNotStarted = errors.New("the jobs client is not running")

// ErrStarted is returned for a worker or periodic job declared once the
// client has started: River takes them when the client is made.
var ErrStarted = errors.New("the jobs client has already started")

// Jobs is a River client run by the server: made and started at Ready,
// stopped at Close after the HTTP drain. Its plugin provides it as a
// service, so handlers take it by type, as *river.Jobs[pgx.Tx] or
// *river.Jobs[*sql.Tx].
type Jobs[TTx any] struct {
	driver  riverdriver.Driver[TTx]
	cfg     river.Config
	migrate bool

	mu        sync.Mutex
	workers   *river.Workers
	periodic  []*river.PeriodicJob
	resolvers []func() error
	uis       []*uiHandler
	stopUIs   context.CancelFunc
	client    *river.Client[TTx]
	started   bool
}

// Option configures New.
type Option func(*options)

type options struct{ migrate bool }

// MigrateAtStart runs River's migrations up at Ready, before the client
// starts: for development and tests. In production run them as a
// deployment step (the river CLI or rivermigrate), so that instances
// starting together do not race to change the schema.
func MigrateAtStart() Option { return func(o *options) { o.migrate = true } }

// New returns the jobs of driver, configured by cfg (nil for River's
// defaults). cfg's Workers and PeriodicJobs are filled by Work and
// Periodic; its Queues default to the default queue with
// DefaultMaxWorkers; its Logger to the server's.
func New[TTx any](driver riverdriver.Driver[TTx], cfg *river.Config, opts ...Option) *Jobs[TTx] {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	j := &Jobs[TTx]{driver: driver, migrate: o.migrate, workers: river.NewWorkers()}
	if cfg != nil {
		j.cfg = *cfg
	}
	if j.cfg.Workers != nil {
		j.workers = j.cfg.Workers
	}
	return j
}

// Plugin provides j to the context it is registered in (it is wrapped)
// and ties the client to the server: every worker's services are
// resolved at Ready, then the client starts; Close stops it once the
// HTTP requests have drained, giving running jobs what is left of Close's
// deadline to finish.
func (j *Jobs[TTx]) Plugin() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Decorate(j); err != nil {
			return err
		}
		if err := s.OnReady(func() error { return j.start(s) }); err != nil {
			return err
		}
		return s.OnClose(j.stop)
	}, app.Name("river"))
}

// Client is the River client, for what this package does not wrap:
// cancelling a job (JobCancelTx), listing, retrying or deleting jobs,
// pausing queues. It is nil before Ready.
func (j *Jobs[TTx]) Client() *river.Client[TTx] {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.client
}

// InsertTx validates args with the rules of their type's validate tags,
// as a request body is validated, and inserts the job in tx: the job
// exists only if tx commits. Pass the request's transaction, so that a
// request that fails enqueues nothing. A validation failure is the 400
// app.Validate returns.
func (j *Jobs[TTx]) InsertTx(ctx context.Context, tx TTx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	c := j.Client()
	if c == nil {
		return nil, ErrNotStarted
	}
	if err := app.Validate(args, "args"); err != nil {
		return nil, err
	}
	return c.InsertTx(ctx, tx, args, opts)
}

// Healthy reports whether the client runs and reaches its database: a
// plugins/health check, as checks.Check("jobs", jobs.Healthy).
func (j *Jobs[TTx]) Healthy(ctx context.Context) error {
	c := j.Client()
	if c == nil {
		return ErrNotStarted
	}
	select {
	case <-c.Stopped():
		return ErrNotStarted
	default:
	}
	if _, err := c.QueueList(ctx, river.NewQueueListParams().First(1)); err != nil {
		return fmt.Errorf("jobs database unreachable: %w", err)
	}
	return nil
}

// CountByState counts the jobs in each state, across queues: the depth
// of the queues (available, scheduled, retryable), the jobs running, and
// the outcomes River still keeps (completed, cancelled, discarded — the
// dead letters — for their retention periods). It is one query; export
// it as gauges from a metrics collector, not on every request.
func (j *Jobs[TTx]) CountByState(ctx context.Context) (map[rivertype.JobState]int, error) {
	if j.Client() == nil {
		return nil, ErrNotStarted
	}
	counts, err := j.driver.GetExecutor().JobCountByAllStates(ctx, &riverdriver.JobCountByAllStatesParams{Schema: j.cfg.Schema})
	if err != nil {
		return nil, fmt.Errorf("counting jobs: %w", err)
	}
	return counts, nil
}

// declare runs add unless the client has been made.
func (j *Jobs[TTx]) declare(what string, add func()) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.started {
		return fmt.Errorf("%s: %w; declare it in a plugin body", what, ErrStarted)
	}
	add()
	return nil
}

func (j *Jobs[TTx]) start(s *app.Server) error {
	j.mu.Lock()
	j.started = true
	resolvers := j.resolvers
	j.mu.Unlock()
	for _, resolve := range resolvers {
		if err := resolve(); err != nil {
			return err
		}
	}
	ctx := context.Background()
	if j.migrate {
		m, err := rivermigrate.New(j.driver, nil)
		if err != nil {
			return fmt.Errorf("jobs migrations: %w", err)
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("jobs migrations: %w", err)
		}
	}
	cfg := j.cfg
	cfg.Workers = j.workers
	cfg.PeriodicJobs = append(cfg.PeriodicJobs[:len(cfg.PeriodicJobs):len(cfg.PeriodicJobs)], j.periodic...)
	if cfg.Queues == nil {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: DefaultMaxWorkers}}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slogzap.NewHandler(s.Log().Named("river").Core()))
	}
	c, err := river.NewClient(j.driver, &cfg)
	if err != nil {
		return fmt.Errorf("jobs client: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("jobs client: %w", err)
	}
	uiCtx, stopUIs := context.WithCancel(ctx) // #nosec G118 -- stop calls it, at Close
	j.mu.Lock()
	j.client, j.stopUIs = c, stopUIs
	uis := j.uis
	j.mu.Unlock()
	return startUIs(uiCtx, uis, c, cfg.Logger)
}

// stop lets running jobs finish until ctx ends, then cancels them and
// waits at most cancelGrace; jobs not yet fetched stay queued.
func (j *Jobs[TTx]) stop(ctx context.Context) error {
	j.mu.Lock()
	c, stopUIs := j.client, j.stopUIs
	j.mu.Unlock()
	if c == nil {
		return nil
	}
	stopUIs()
	err := c.Stop(ctx)
	if err == nil || ctx.Err() == nil {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	if cerr := c.StopAndCancel(cctx); cerr != nil {
		return fmt.Errorf("jobs still running after Close's deadline and %v more: %w", cancelGrace, cerr)
	}
	return fmt.Errorf("jobs were still running at Close's deadline and were cancelled: %w", err)
}
