package pgxstore_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/idempotency/pgxstore"
	"github.com/burrow-go/burrow/plugins/pgxdb"
)

// The records are kept in the request's pgx.Tx, which plugins/pgxdb
// provides. (It needs a PostgreSQL server at DATABASE_URL, so it is not
// run here.)
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := pool.Exec(ctx, idempotency.Postgres.Schema()); err != nil {
		log.Fatal(err)
	}
	s := app.New()
	s.Register(pgxdb.Plugin(pool))
	s.Register(idempotency.Plugin(pgxstore.New()))
	app.Post(s, "/orders", func(ctx context.Context, in createIn) (item, error) {
		_, err := in.Tx.Exec(ctx, `INSERT INTO orders (name) VALUES ($1)`, in.Body.Name)
		return in.Body, err
	}, app.Status(201), idempotency.Route())
	log.Fatal(s.Listen("127.0.0.1:8000"))
}
