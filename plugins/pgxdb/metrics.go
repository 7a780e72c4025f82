package pgxdb

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// observe registers the pool's gauges with mp, named as OpenTelemetry's
// semantic conventions name a database client's pool.
func observe(mp metric.MeterProvider, name string, pool *pgxpool.Pool) (metric.Registration, error) {
	m := mp.Meter("github.com/burrow-go/burrow/plugins/pgxdb")
	count, err := m.Int64ObservableUpDownCounter("db.client.connection.count",
		metric.WithDescription("The connections of the pool, by state: idle or used."), metric.WithUnit("{connection}"))
	if err != nil {
		return nil, err
	}
	limit, err := m.Int64ObservableUpDownCounter("db.client.connection.max",
		metric.WithDescription("The most connections the pool opens."), metric.WithUnit("{connection}"))
	if err != nil {
		return nil, err
	}
	waits, err := m.Int64ObservableCounter("db.client.connection.waits",
		metric.WithDescription("The acquisitions that waited for a connection."), metric.WithUnit("{acquisition}"))
	if err != nil {
		return nil, err
	}
	waited, err := m.Float64ObservableCounter("db.client.connection.wait_time",
		metric.WithDescription("The time acquisitions waited for a connection."), metric.WithUnit("s"))
	if err != nil {
		return nil, err
	}
	named := attribute.String("db.client.connection.pool.name", name)
	idle := metric.WithAttributes(named, attribute.String("db.client.connection.state", "idle"))
	used := metric.WithAttributes(named, attribute.String("db.client.connection.state", "used"))
	of := metric.WithAttributes(named)
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := pool.Stat()
		o.ObserveInt64(count, int64(st.IdleConns()), idle)
		o.ObserveInt64(count, int64(st.AcquiredConns()), used)
		o.ObserveInt64(limit, int64(st.MaxConns()), of)
		o.ObserveInt64(waits, st.EmptyAcquireCount(), of)
		o.ObserveFloat64(waited, st.EmptyAcquireWaitTime().Seconds(), of)
		return nil
	}, count, limit, waits, waited)
}
