package pgxstore_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/idempotency/pgxstore"
	"github.com/burrow-go/burrow/plugins/pgxdb"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

type item struct {
	Name   string `json:"name" validate:"required"`
	Serial int64  `json:"serial"`
}

type createIn struct {
	app.In
	Tx   pgx.Tx
	Body item `body:""`
}

func newServer(t *testing.T, url string, serial *atomic.Int64) *app.Server {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(pgxdb.Plugin(pool, pgxdb.KeepOpen()))
	s.Register(idempotency.Plugin(pgxstore.New()))
	app.Post(s, "/items", func(ctx context.Context, in createIn) (item, error) {
		if _, err := in.Tx.Exec(ctx, `INSERT INTO items (name) VALUES ($1)`, in.Body.Name); err != nil {
			return item{}, httpx.NewError(http.StatusConflict, "TAKEN", "the name is taken")
		}
		in.Body.Serial = serial.Add(1)
		return in.Body, nil
	}, app.Status(http.StatusCreated), idempotency.Route())
	require.NoError(t, s.Ready())
	return s
}

func post(t *testing.T, s *app.Server, key, body string) *apptest.Response {
	return apptest.Do(t, s, "POST", "/items", strings.NewReader(body),
		"Content-Type", "application/json", idempotency.Header, key)
}

// In the request's pgx.Tx: a repeat is replayed, another body is 422, a
// failure leaves no record, and two instances on one database create
// once.
func TestRecordsInTheRequestsTransaction(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.URL("test")
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(t.Context(), `CREATE TABLE items (name TEXT PRIMARY KEY)`)
	require.NoError(t, err)
	_, err = pool.Exec(t.Context(), idempotency.Postgres.Schema())
	require.NoError(t, err)
	var serial atomic.Int64
	a, b := newServer(t, url, &serial), newServer(t, url, &serial)

	first := post(t, a, "k1", `{"name":"milk"}`)
	require.Equal(t, http.StatusCreated, first.StatusCode, first.Body)
	again := post(t, b, "k1", `{"name":"milk"}`)
	assert.Equal(t, first.Body, again.Body, "replayed by the other instance")
	assert.Equal(t, "true", again.Header.Get(idempotency.ReplayedHeader))
	assert.Equal(t, http.StatusUnprocessableEntity, post(t, a, "k1", `{"name":"eggs"}`).StatusCode)

	assert.Equal(t, http.StatusConflict, post(t, a, "k2", `{"name":"milk"}`).StatusCode, "a title conflict")
	var records int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM `+idempotency.Table).Scan(&records))
	assert.Equal(t, 1, records, "the failed request left no record")
	assert.Equal(t, http.StatusCreated, post(t, a, "k2", `{"name":"bread"}`).StatusCode, "k2 is free again")

	const keys = 20
	var wg sync.WaitGroup
	for i := range keys {
		for _, s := range []*app.Server{a, b} {
			wg.Go(func() {
				res := post(t, s, fmt.Sprintf("key-%d", i), fmt.Sprintf(`{"name":"item-%d"}`, i))
				if res.StatusCode != http.StatusCreated {
					assert.Equal(t, http.StatusConflict, res.StatusCode, res.Body)
					assert.Contains(t, res.Body, "IDEMPOTENCY_KEY_IN_USE")
				}
			})
		}
	}
	wg.Wait()
	var items int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM items`).Scan(&items))
	assert.Equal(t, keys+2, items)
}
