package river_test

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite"

	"github.com/burrow-go/burrow/app"
	jobs "github.com/burrow-go/burrow/plugins/river"
)

type greetArgs struct {
	Name string `json:"name" validate:"required"`
}

func (greetArgs) Kind() string { return "greet" }

type greeter struct{ done chan string }

type greetDeps struct {
	app.In
	Greeter *greeter
}

// A worker declares the services it needs as a typed route does; they
// are resolved from its context at Ready.
func Example() {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()

	queue := jobs.New(riversqlite.New(db), nil, jobs.MigrateAtStart())
	g := &greeter{done: make(chan string, 1)}
	s := app.New(app.WithoutRequestLogging())
	_ = s.Register(queue.Plugin())
	_ = s.Register(func(c *app.Server) error {
		if err := c.Decorate(g); err != nil {
			return err
		}
		return jobs.Work(queue, c, func(_ context.Context, job *river.Job[greetArgs], deps greetDeps) error {
			deps.Greeter.done <- "hello, " + job.Args.Name
			return nil
		})
	}, app.Name("greetings"))
	if err := s.Ready(); err != nil {
		panic(err)
	}

	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil) // in a handler: the request's transaction
	if err != nil {
		panic(err)
	}
	if _, err := queue.InsertTx(ctx, tx, greetArgs{}, nil); err != nil {
		fmt.Println(err)
	}
	if _, err := queue.InsertTx(ctx, tx, greetArgs{Name: "Ada"}, nil); err != nil {
		panic(err)
	}
	if err := tx.Commit(); err != nil {
		panic(err)
	}
	fmt.Println(<-g.done)
	if err := s.Close(ctx); err != nil {
		panic(err)
	}
	// Output:
	// 400 FST_ERR_VALIDATION: args/name is required
	// hello, Ada
}
