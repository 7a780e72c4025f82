package pgxdb_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/pgxdb"
)

type todo struct {
	Title string `json:"title" validate:"required"`
	ID    int64  `json:"id"`
}

type createTodo struct {
	app.In
	Tx   pgx.Tx // the request's transaction
	Body todo   `body:""`
}

// A pool traced and measured through the global OpenTelemetry
// providers, checked for readiness, and closed after the drain. (It
// needs a PostgreSQL server at DATABASE_URL, so it is not run here.)
func Example() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.ConnConfig.Tracer = pgxdb.Tracer(otel.GetTracerProvider())
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	checks := health.New()
	s := app.New()
	s.Register(pgxdb.Plugin(pool, pgxdb.Check(checks, "postgres"), pgxdb.Metrics(otel.GetMeterProvider(), "main")))
	s.Register(checks.Routes())
	app.Post(s, "/todos", func(ctx context.Context, in createTodo) (todo, error) {
		err := in.Tx.QueryRow(ctx, `INSERT INTO todos (title) VALUES ($1) RETURNING id`, in.Body.Title).Scan(&in.Body.ID)
		return in.Body, err
	}, app.Status(201))
	log.Fatal(s.Listen("127.0.0.1:8000"))
}
