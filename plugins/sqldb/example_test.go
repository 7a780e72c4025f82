package sqldb_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	_ "modernc.org/sqlite"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/sqldb"
)

type note struct {
	Text string `json:"text" validate:"required"`
}

type addNote struct {
	app.In
	Tx   *sql.Tx // the request's transaction
	Body note    `body:""`
}

// Each request that takes a *sql.Tx gets one: what a request that
// succeeds wrote is committed, what one that fails wrote is rolled back.
func Example() {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1) // one in-memory database, one connection
	if _, err := db.Exec(`CREATE TABLE notes (text TEXT NOT NULL)`); err != nil {
		panic(err)
	}

	s := app.New(app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db)) // closed once the server has drained
	app.Post(s, "/notes", func(ctx context.Context, in addNote) (note, error) {
		if _, err := in.Tx.ExecContext(ctx, `INSERT INTO notes (text) VALUES (?)`, in.Body.Text); err != nil {
			return note{}, err
		}
		if strings.Contains(in.Body.Text, "secret") {
			return note{}, httpx.NewError(422, "SECRET", "no secrets") // rolls the insert back
		}
		return in.Body, nil
	}, app.Status(201))

	for _, body := range []string{`{"text":"milk"}`, `{"text":"a secret"}`} {
		req := httptest.NewRequest("POST", "/notes", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := s.Inject(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, string(b))
	}
	var n int
	_ = db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n)
	fmt.Println(n, "note kept")
	_ = s.Close(context.Background())
	fmt.Println(db.Ping())
	// Output:
	// 201 {"text":"milk"}
	// 422 {"statusCode":422,"code":"SECRET","error":"Unprocessable Entity","message":"no secrets"}
	// 1 note kept
	// sql: database is closed
}
