// Package pgxstore keeps Idempotency-Key records in the request's pgx
// transaction (the pgx.Tx of plugins/pgxdb), as idempotency.SQL does in
// a *sql.Tx: the claim of the key, the handler's writes and the answer
// commit together or vanish together. The table is the SQL store's,
// created with its PostgreSQL statement:
//
//	pool.Exec(ctx, idempotency.Postgres.Schema())
package pgxstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/idempotency"
)

// New returns the store that keeps records in the request's pgx.Tx.
func New() idempotency.Store {
	return idempotency.NewStore(func(_ context.Context, in txIn) (idempotency.Records, error) {
		return idempotency.SQLRecords(querier{in.Tx}, idempotency.Postgres), nil
	})
}

type txIn struct {
	app.In
	Tx pgx.Tx
}

// querier is a pgx.Tx as an idempotency.Querier.
type querier struct{ tx pgx.Tx }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) idempotency.Row {
	return q.tx.QueryRow(ctx, query, args...)
}
