package idempotency_test

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
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/sqldb"
)

type order struct {
	Item string `json:"item" validate:"required"`
	ID   int64  `json:"id,omitempty"`
}

type placeOrder struct {
	app.In
	Tx   *sql.Tx
	Body order `body:""`
}

// A repeat of a request with the same Idempotency-Key is answered from
// the record its first answer left, in the same transaction as the
// order: nothing is ordered twice.
func Example() {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)`); err != nil {
		panic(err)
	}
	if err := idempotency.CreateTable(ctx, db, idempotency.SQLite); err != nil {
		panic(err)
	}

	s := app.New(app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db))
	s.Register(idempotency.Plugin(idempotency.SQL(idempotency.SQLite),
		// X-User stands for the user your authentication hook found.
		idempotency.Identity(func(req *httpx.Request) (string, error) { return req.Header("X-User"), nil })))
	app.Post(s, "/orders", func(ctx context.Context, in placeOrder) (order, error) {
		err := in.Tx.QueryRowContext(ctx, `INSERT INTO orders (item) VALUES (?) RETURNING id`, in.Body.Item).Scan(&in.Body.ID)
		return in.Body, err
	}, app.Status(201), idempotency.Route())

	send := func(key, body string) {
		req := httptest.NewRequest("POST", "/orders", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", "ann")
		req.Header.Set("Idempotency-Key", key)
		res, err := s.Inject(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, res.Header.Get("Idempotent-Replayed"), string(b))
	}
	send("k-1", `{"item":"tea"}`)
	send("k-1", `{"item":"tea"}`)    // the same: replayed
	send("k-1", `{"item":"coffee"}`) // another request under the key
	send("k-2", `{"item":"coffee"}`)
	var n int
	_ = db.QueryRow(`SELECT count(*) FROM orders`).Scan(&n)
	fmt.Println(n, "orders")
	_ = s.Close(ctx)
	// Output:
	// 201  {"item":"tea","id":1}
	// 201 true {"item":"tea","id":1}
	// 422  {"statusCode":422,"code":"IDEMPOTENCY_KEY_REUSED","error":"Unprocessable Entity","message":"this Idempotency-Key was used with another request"}
	// 201  {"item":"coffee","id":2}
	// 2 orders
}
