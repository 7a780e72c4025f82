package pgxdb

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/metric"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/lease"
	"github.com/burrow-go/burrow/plugins/health"
)

// ErrClosed is the error of a request that needs a transaction once the
// server has closed the pool.
var ErrClosed = errors.New("the database is closed")

// Plugin returns a wrapped plugin that registers, in the context it is
// registered in:
//
//   - pool as a service (*pgxpool.Pool);
//   - the request's transaction as a request value (pgx.Tx): begun the
//     first time something in a request takes it, with the request's
//     context, committed right before a successful reply is written and
//     rolled back when the request failed (an error, a panic, a status of
//     400 or more, the request time-out) or its client went away;
//   - an OnClose hook closing pool once the server has drained and every
//     transaction has ended.
//
// A commit that fails is the request's answer (a 500 by default).
func Plugin(pool *pgxpool.Pool, opts ...Option) *app.Plugin {
	p := &plugin{pool: pool, leases: lease.New()}
	for _, o := range opts {
		o(p)
	}
	return app.Wrap(func(s *app.Server) error {
		if pool == nil {
			return errors.New("the pgxdb plugin needs a *pgxpool.Pool, not nil")
		}
		if err := s.Decorate(pool); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(p.begin)); err != nil {
			return err
		}
		if p.checks != nil {
			if err := s.Register(p.checks.Check(p.checkName, pool.Ping, p.checkOpts...)); err != nil {
				return err
			}
		}
		var metrics metric.Registration
		if p.meters != nil {
			var err error
			if metrics, err = observe(p.meters, p.poolName, pool); err != nil {
				return err
			}
		}
		return s.OnClose(func(ctx context.Context) error {
			var err error
			if metrics != nil {
				err = metrics.Unregister()
			}
			if p.keepOpen {
				return err
			}
			return errors.Join(err, p.leases.Close(ctx, func() error { pool.Close(); return nil }))
		})
	}, app.Name("pgxdb"))
}

// Option configures the plugin.
type Option func(*plugin)

// Check adds a readiness check called name to checks: a ping of the
// pool, which fails while the database cannot be reached; opts set its
// interval and time-out.
func Check(checks *health.Checks, name string, opts ...health.CheckOption) Option {
	return func(p *plugin) { p.checks, p.checkName, p.checkOpts = checks, name, opts }
}

// Metrics reports the pool's connections through mp, as the
// OpenTelemetry gauges of a database client's pool, named pool (the
// db.client.connection.pool.name attribute).
func Metrics(mp metric.MeterProvider, pool string) Option {
	return func(p *plugin) { p.meters, p.poolName = mp, pool }
}

// TxOptions sets the options each request's transaction begins with,
// from its request; nil (the default) begins every one with the
// database's defaults. ReadOnlyReads is one such function.
func TxOptions(fn func(*httpx.Request) pgx.TxOptions) Option {
	return func(p *plugin) { p.txOptions = fn }
}

// ReadOnlyReads begins the transactions of GET and HEAD requests read-only
// and the others read-write, for TxOptions.
func ReadOnlyReads(req *httpx.Request) pgx.TxOptions {
	if m := req.Method(); m == http.MethodGet || m == http.MethodHead {
		return pgx.TxOptions{AccessMode: pgx.ReadOnly}
	}
	return pgx.TxOptions{}
}

// KeepOpen leaves closing the pool to the caller.
func KeepOpen() Option { return func(p *plugin) { p.keepOpen = true } }

type plugin struct {
	pool      *pgxpool.Pool
	txOptions func(*httpx.Request) pgx.TxOptions
	checks    *health.Checks
	checkName string
	checkOpts []health.CheckOption
	meters    metric.MeterProvider
	poolName  string
	keepOpen  bool
	leases    *lease.Holder // one per open transaction
}

type txIn struct {
	app.In
	Req *httpx.Request
}

// begin is the request value's constructor.
func (p *plugin) begin(ctx context.Context, in txIn) (pgx.Tx, func(failed bool) error, error) {
	if err := p.leases.Take(); err != nil {
		return nil, nil, httpx.NewError(http.StatusServiceUnavailable, "DATABASE_CLOSED", ErrClosed.Error())
	}
	var opts pgx.TxOptions
	if p.txOptions != nil {
		opts = p.txOptions(in.Req)
	}
	tx, err := p.pool.BeginTx(ctx, opts)
	if err != nil {
		p.leases.Give()
		return nil, nil, fmt.Errorf("beginning the request's transaction: %w", err)
	}
	return tx, func(failed bool) error {
		defer p.leases.Give()
		// A client that went away fails the request: what it did is
		// rolled back, as database/sql does for a context that ends.
		if failed || ctx.Err() != nil {
			if err := tx.Rollback(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
				return fmt.Errorf("rolling back the request's transaction: %w", err)
			}
			if !failed {
				return fmt.Errorf("the request's transaction was rolled back: %w", context.Cause(ctx))
			}
			return nil
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("committing the request's transaction: %w", err)
		}
		return nil
	}, nil
}
