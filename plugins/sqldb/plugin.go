package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

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
//   - db as a service (*sql.DB);
//   - the request's transaction as a request value (*sql.Tx): begun the
//     first time something in a request takes it, with the request's
//     context, committed right before a successful reply is written and
//     rolled back when the request failed (an error, a panic, a status of
//     400 or more, the request time-out) or its client went away;
//   - an OnClose hook closing db once the server has drained and every
//     transaction has ended (see Close).
//
// A commit that fails is the request's answer (a 500 by default): the
// client never reads a success that did not happen.
func Plugin(db *sql.DB, opts ...Option) *app.Plugin {
	p := &pool{db: db, leases: lease.New()}
	for _, o := range opts {
		o(p)
	}
	return app.Wrap(func(s *app.Server) error {
		if db == nil {
			return errors.New("the sqldb plugin needs a *sql.DB, not nil")
		}
		if err := s.Decorate(db); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(p.begin)); err != nil {
			return err
		}
		if p.checks != nil {
			if err := s.Register(p.checks.Check(p.checkName, db.PingContext, p.checkOpts...)); err != nil {
				return err
			}
		}
		var metrics metric.Registration
		if p.meters != nil {
			var err error
			if metrics, err = observe(p.meters, p.poolName, db); err != nil {
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
			return errors.Join(err, p.close(ctx))
		})
	}, app.Name("sqldb"))
}

// Option configures the plugin.
type Option func(*pool)

// Check adds a readiness check called name to checks: a ping of the
// pool, which fails while the database cannot be reached; opts set its
// interval and time-out.
func Check(checks *health.Checks, name string, opts ...health.CheckOption) Option {
	return func(p *pool) { p.checks, p.checkName, p.checkOpts = checks, name, opts }
}

// Metrics reports the pool's connections through mp, as the
// OpenTelemetry gauges of a database client's pool, named pool (the
// db.client.connection.pool.name attribute).
func Metrics(mp metric.MeterProvider, name string) Option {
	return func(p *pool) { p.meters, p.poolName = mp, name }
}

// Tracing makes an OpenTelemetry span of each request's transaction,
// through tp: from its beginning to its commit or rollback, which its
// db.transaction.outcome attribute says. It is a child of the request's
// span (plugins/otel). The queries' own spans are the driver's: pgx's
// (plugins/pgxdb's Tracer, through pgx's database/sql driver), for one.
func Tracing(tp trace.TracerProvider) Option {
	return func(p *pool) { p.tracer = tp.Tracer("github.com/burrow-go/burrow/plugins/sqldb") }
}

// TxOptions sets the options each request's transaction begins with,
// from its request; nil (the default) begins every one with the driver's
// defaults. ReadOnlyReads is one such function.
func TxOptions(fn func(*httpx.Request) *sql.TxOptions) Option {
	return func(p *pool) { p.txOptions = fn }
}

// ReadOnlyReads begins the transactions of GET and HEAD requests read-only
// and the others read-write, for TxOptions: a database that knows it
// takes no write lock for them (SQLite in WAL mode, a PostgreSQL
// replica).
func ReadOnlyReads(req *httpx.Request) *sql.TxOptions {
	if m := req.Method(); m == http.MethodGet || m == http.MethodHead {
		return &sql.TxOptions{ReadOnly: true}
	}
	return nil
}

// KeepOpen leaves closing the pool to the caller: the plugin does not
// close it when the server closes.
func KeepOpen() Option { return func(p *pool) { p.keepOpen = true } }

// pool is one registration of the plugin: the pool and the transactions
// open on it.
type pool struct {
	db        *sql.DB
	txOptions func(*httpx.Request) *sql.TxOptions
	checks    *health.Checks
	checkName string
	checkOpts []health.CheckOption
	tracer    trace.Tracer
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
func (p *pool) begin(ctx context.Context, in txIn) (*sql.Tx, func(failed bool) error, error) {
	if err := p.leases.Take(); err != nil {
		return nil, nil, httpx.NewError(http.StatusServiceUnavailable, "DATABASE_CLOSED", ErrClosed.Error())
	}
	var opts *sql.TxOptions
	if p.txOptions != nil {
		opts = p.txOptions(in.Req)
	}
	ctx, span := p.startSpan(ctx)
	tx, err := p.db.BeginTx(ctx, opts)
	if err != nil {
		p.leases.Give()
		err = fmt.Errorf("beginning the request's transaction: %w", err)
		endSpan(span, "none", err)
		return nil, nil, err
	}
	return tx, func(failed bool) error {
		defer p.leases.Give()
		if failed {
			// A transaction whose context ended (the client went away)
			// was rolled back by database/sql already.
			if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
				err = fmt.Errorf("rolling back the request's transaction: %w", err)
				endSpan(span, "rollback", err)
				return err
			}
			endSpan(span, "rollback", nil)
			return nil
		}
		if err := tx.Commit(); err != nil {
			err = fmt.Errorf("committing the request's transaction: %w", err)
			endSpan(span, "rollback", err)
			return err
		}
		endSpan(span, "commit", nil)
		return nil
	}, nil
}

// startSpan starts the span of a request's transaction, when the plugin
// traces them; nil otherwise.
func (p *pool) startSpan(ctx context.Context) (context.Context, trace.Span) {
	if p.tracer == nil {
		return ctx, nil
	}
	return p.tracer.Start(ctx, "transaction", trace.WithSpanKind(trace.SpanKindClient))
}

// endSpan ends span, if not nil, with the transaction's outcome: commit,
// rollback, or none when it did not begin.
func endSpan(span trace.Span, outcome string, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String("db.transaction.outcome", outcome))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// close is the OnClose hook: the server has drained its requests, but a
// handler that outlived Close's context may still hold a transaction.
// The pool closes when the last one has ended; if ctx ends first, close
// returns an error saying so, and the pool closes after that transaction.
func (p *pool) close(ctx context.Context) error {
	return p.leases.Close(ctx, p.db.Close)
}
