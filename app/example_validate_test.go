package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// A row of an uploaded file is judged by its type's rules, with the
// error and paths of a route's 400.
func ExampleValidate() {
	type row struct {
		Title string `json:"title" validate:"required,max=200"`
		Qty   int    `json:"qty" validate:"min=1"`
	}
	err := app.Validate(row{Qty: 0}, "body/file/3")
	var he *httpx.Error
	if errors.As(err, &he) {
		fmt.Println(he.StatusCode, he.Code)
		for _, f := range he.Validation {
			fmt.Println(f.Path, f.Rule, f.Message)
		}
	}
	fmt.Println(app.Validate(row{Title: "ok", Qty: 2}, ""))
	// Output:
	// 400 FST_ERR_VALIDATION
	// body/file/3/title required is required
	// body/file/3/qty min must be >= 1
	// <nil>
}

// A service's main: the public and admin servers served until SIGTERM,
// closed in that order, the database after them, and the exit status
// saying how it went.
func ExampleRun() {
	public, admin := app.New(), app.New()
	public.Get("/", func() (string, error) { return "hello", nil })
	admin.Get("/readyz", func() (string, error) { return "ready", nil })
	db := &store{} // any io.Closer: a *sql.DB, a Redis client
	err := app.Run(context.Background(),
		app.Serving(public, ":8080"),
		app.Serving(admin, "127.0.0.1:9090"),
		app.Closing(db))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(app.ExitCode(err))
}

// store stands for a database.
type store struct{}

func (*store) Close() error { return nil }
