package idempotency_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/sqldb"
)

type item struct {
	Name   string `json:"name" validate:"required"`
	Serial int64  `json:"serial,omitempty"`
}

type createIn struct {
	app.In
	Tx   *sql.Tx
	Rep  *httpx.Reply
	Body item `body:""`
}

// service is a server with the plugin on db, and what its handler does.
type service struct {
	s      *app.Server
	serial atomic.Int64
	// gate, when set, holds the handler of an item named "slow…" after
	// its write, until the test closes it; started says it got there.
	gate, started chan struct{}
	// between, when set, runs after the handler's write, before the
	// answer is recorded.
	between func(ctx context.Context, tx *sql.Tx) error
}

// newService serves POST /items on db: the handler inserts the item in
// the request's transaction and answers 201 with a serial number of the
// server's, which only a replay repeats. The identity is X-User.
func newService(t testing.TB, db *sql.DB, d idempotency.Dialect) *service {
	t.Helper()
	sv := &service{}
	s := app.New(app.WithoutRequestLogging())
	t.Cleanup(func() { s.Close(context.Background()) })
	s.Register(sqldb.Plugin(db, sqldb.KeepOpen()))
	s.Register(idempotency.Plugin(idempotency.SQL(d), idempotency.Identity(func(req *httpx.Request) (string, error) {
		if u := req.Header("X-User"); u != "" {
			return u, nil
		}
		return "", httpx.NewError(http.StatusUnauthorized, "UNAUTHORIZED", "who are you")
	})))
	app.Post(s, "/items", func(ctx context.Context, in createIn) (item, error) {
		_, err := in.Tx.ExecContext(ctx, `INSERT INTO items (name) VALUES ($1)`, in.Body.Name)
		if err != nil {
			return item{}, httpx.NewError(http.StatusConflict, "TAKEN", "the name is taken")
		}
		if strings.HasPrefix(in.Body.Name, "slow") && sv.gate != nil {
			close(sv.started)
			<-sv.gate
		}
		if sv.between != nil {
			if err := sv.between(ctx, in.Tx); err != nil {
				return item{}, err
			}
		}
		in.Rep.Header().Set("Location", "/items/"+in.Body.Name)
		return item{Name: in.Body.Name, Serial: sv.serial.Add(1)}, nil
	}, app.Status(http.StatusCreated), idempotency.Route())
	app.Post(s, "/plain", func(ctx context.Context, in createIn) (item, error) {
		return in.Body, nil
	})
	require.NoError(t, s.Ready())
	sv.s = s
	return sv
}

func setup(t testing.TB, db *sql.DB, d idempotency.Dialect) {
	t.Helper()
	_, err := db.Exec(`CREATE TABLE items (name TEXT PRIMARY KEY)`)
	require.NoError(t, err)
	require.NoError(t, idempotency.CreateTable(t.Context(), db, d))
}

var dialects = map[string]idempotency.Dialect{"sqlite": idempotency.SQLite, "postgres": idempotency.Postgres}

// post sends body to POST /items with key (none when empty) as user.
func (sv *service) post(t *testing.T, user, key, body string) *apptest.Response {
	t.Helper()
	h := []string{"Content-Type", "application/json", "X-User", user}
	if key != "" {
		h = append(h, idempotency.Header, key)
	}
	return apptest.Do(t, sv.s, "POST", "/items", strings.NewReader(body), h...)
}

func rows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// A repeat with the same key and body is answered with the first
// answer, status, headers and body, and creates nothing; another user's
// identical key is another key; the same key with another body is 422.
func TestRepeatIsReplayed(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			setup(t, db, dialects[b.Name])
			sv := newService(t, db, dialects[b.Name])

			first := sv.post(t, "alice", "k1", `{"name":"milk"}`)
			require.Equal(t, http.StatusCreated, first.StatusCode, first.Body)
			assert.Empty(t, first.Header.Get(idempotency.ReplayedHeader))
			for range 2 {
				again := sv.post(t, "alice", "k1", `{"name":"milk"}`)
				assert.Equal(t, http.StatusCreated, again.StatusCode)
				assert.Equal(t, first.Body, again.Body)
				assert.Equal(t, "/items/milk", again.Header.Get("Location"))
				assert.Equal(t, first.Header.Get("Content-Type"), again.Header.Get("Content-Type"))
				assert.Equal(t, "true", again.Header.Get(idempotency.ReplayedHeader))
			}
			assert.Equal(t, 1, rows(t, db, "items"))

			other := sv.post(t, "alice", "k1", `{"name":"eggs"}`)
			assert.Equal(t, http.StatusUnprocessableEntity, other.StatusCode)
			assert.Contains(t, other.Body, `"code":"IDEMPOTENCY_KEY_REUSED"`)

			bob := sv.post(t, "bob", "k1", `{"name":"eggs"}`)
			assert.Equal(t, http.StatusCreated, bob.StatusCode, "another user's key")
			assert.Empty(t, bob.Header.Get(idempotency.ReplayedHeader))
			assert.Equal(t, 2, rows(t, db, "items"))

			none := sv.post(t, "alice", "", `{"name":"bread"}`)
			assert.Equal(t, http.StatusCreated, none.StatusCode, "no key, no check")
			assert.Equal(t, 2, rows(t, db, idempotency.Table))
		})
	}
}

// A request that failed rolled back its claim of the key with its
// writes: once the cause is gone, a retry with the same key and body
// runs and creates.
func TestFailedRequestLeavesNoRecord(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			setup(t, db, dialects[b.Name])
			sv := newService(t, db, dialects[b.Name])
			_, err := db.Exec(`INSERT INTO items (name) VALUES ('milk')`)
			require.NoError(t, err)

			res := sv.post(t, "alice", "k1", `{"name":"milk"}`)
			require.Equal(t, http.StatusConflict, res.StatusCode)
			assert.Contains(t, res.Body, `"code":"TAKEN"`)
			assert.Equal(t, 0, rows(t, db, idempotency.Table))

			_, err = db.Exec(`DELETE FROM items`)
			require.NoError(t, err)
			res = sv.post(t, "alice", "k1", `{"name":"milk"}`)
			assert.Equal(t, http.StatusCreated, res.StatusCode)
			assert.Empty(t, res.Header.Get(idempotency.ReplayedHeader))
			assert.Equal(t, 1, rows(t, db, "items"))
		})
	}
}

// A key is one header of 1 to 255 characters from 0x21 to 0x7E.
func TestInvalidKeysAreRefused(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	setup(t, db, idempotency.SQLite)
	sv := newService(t, db, idempotency.SQLite)
	tests := []struct {
		name   string
		keys   []string
		status int
	}{
		{"empty", []string{""}, http.StatusBadRequest},
		{"256 characters", []string{strings.Repeat("k", 256)}, http.StatusBadRequest},
		{"a space", []string{"a b"}, http.StatusBadRequest},
		{"a tab", []string{"a\tb"}, http.StatusBadRequest},
		{"not ASCII", []string{"clé"}, http.StatusBadRequest},
		{"DEL", []string{"a\x7f"}, http.StatusBadRequest},
		{"two headers", []string{"a", "b"}, http.StatusBadRequest},
		{"255 characters", []string{strings.Repeat("k", 255)}, http.StatusCreated},
		{"every visible character", []string{"!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~"}, http.StatusCreated},
	}
	for i, tt := range tests {
		req, err := http.NewRequest("POST", "/items", strings.NewReader(fmt.Sprintf(`{"name":"n%d"}`, i)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", "alice")
		req.Header[idempotency.Header] = tt.keys
		res := apptest.Inject(t, sv.s, req)
		assert.Equal(t, tt.status, res.StatusCode, tt.name)
		if tt.status == http.StatusBadRequest {
			assert.Contains(t, res.Body, `"code":"INVALID_IDEMPOTENCY_KEY"`, tt.name)
		}
	}
	assert.Equal(t, 2, rows(t, db, "items"))
}

// An expired key is a new key: its request runs.
func TestExpiredKeyRunsAgain(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			setup(t, db, dialects[b.Name])
			sv := newService(t, db, dialects[b.Name])
			require.Equal(t, http.StatusCreated, sv.post(t, "alice", "k1", `{"name":"milk"}`).StatusCode)
			_, err := db.Exec(`UPDATE ` + idempotency.Table + ` SET expires_at = 0`)
			require.NoError(t, err)
			res := sv.post(t, "alice", "k1", `{"name":"eggs"}`)
			assert.Equal(t, http.StatusCreated, res.StatusCode, res.Body)
			assert.Empty(t, res.Header.Get(idempotency.ReplayedHeader))
			n, err := idempotency.DeleteExpired(t.Context(), db)
			require.NoError(t, err)
			assert.Zero(t, n, "the record was renewed")
		})
	}
}

// A repeat while the first request runs: on PostgreSQL, 409 at once; on
// SQLite, whose writers take turns, the repeat waits and is replayed.
// Either way, one creation.
func TestRepeatWhileTheFirstRuns(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db := b.Open(t)
			setup(t, db, dialects[b.Name])
			sv := newService(t, db, dialects[b.Name])
			sv.gate, sv.started = make(chan struct{}), make(chan struct{})

			first := make(chan *apptest.Response, 1)
			go func() { first <- sv.post(t, "alice", "k1", `{"name":"slow"}`) }()
			<-sv.started
			if b.Name == "postgres" {
				res := sv.post(t, "alice", "k1", `{"name":"slow"}`)
				assert.Equal(t, http.StatusConflict, res.StatusCode)
				assert.Contains(t, res.Body, `"code":"IDEMPOTENCY_KEY_IN_USE"`)
				close(sv.gate)
			} else {
				second := make(chan *apptest.Response, 1)
				go func() { second <- sv.post(t, "alice", "k1", `{"name":"slow"}`) }()
				close(sv.gate)
				res := <-second
				assert.Equal(t, http.StatusCreated, res.StatusCode)
				assert.Equal(t, "true", res.Header.Get(idempotency.ReplayedHeader))
			}
			assert.Equal(t, http.StatusCreated, (<-first).StatusCode)
			assert.Equal(t, 1, rows(t, db, "items"))
		})
	}
}

// Two instances on one PostgreSQL database, the same key and body sent
// to both at once: one creation, and the other answer is the replay or
// 409.
func TestTwoInstancesOneCreation(t *testing.T) {
	t.Parallel()
	db, reopen := backends[1].OpenTwice(t)
	setup(t, db, idempotency.Postgres)
	a, b := newService(t, db, idempotency.Postgres), newService(t, reopen(), idempotency.Postgres)
	const keys = 20
	var wg sync.WaitGroup
	answers := make([][2]*apptest.Response, keys)
	for i := range keys {
		for j, sv := range []*service{a, b} {
			wg.Go(func() {
				answers[i][j] = sv.post(t, "alice", fmt.Sprintf("key-%d", i), fmt.Sprintf(`{"name":"item-%d"}`, i))
			})
		}
	}
	wg.Wait()
	assert.Equal(t, keys, rows(t, db, "items"))
	for i, pair := range answers {
		created := 0
		for _, res := range pair {
			switch {
			case res.StatusCode == http.StatusCreated && res.Header.Get(idempotency.ReplayedHeader) == "":
				created++
			case res.StatusCode == http.StatusCreated, res.StatusCode == http.StatusConflict && strings.Contains(res.Body, "IDEMPOTENCY_KEY_IN_USE"):
			default:
				t.Errorf("key %d: %d %s", i, res.StatusCode, res.Body)
			}
		}
		assert.Equal(t, 1, created, "key %d", i)
	}
}

// The connection dies between the handler's write and the record of its
// answer: neither is kept, and a retry with the same key runs and
// creates.
func TestWritesAndRecordCommitTogether(t *testing.T) {
	t.Parallel()
	db, reopen := backends[1].OpenTwice(t)
	setup(t, db, idempotency.Postgres)
	sv := newService(t, reopen(), idempotency.Postgres)
	var killed atomic.Bool
	sv.between = func(ctx context.Context, tx *sql.Tx) error {
		if killed.Swap(true) {
			return nil
		}
		var pid int
		if err := tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid)
		return err
	}
	res := sv.post(t, "alice", "k1", `{"name":"milk"}`)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	assert.Equal(t, 0, rows(t, db, "items"))
	assert.Equal(t, 0, rows(t, db, idempotency.Table))

	res = sv.post(t, "alice", "k1", `{"name":"milk"}`)
	assert.Equal(t, http.StatusCreated, res.StatusCode, res.Body)
	assert.Empty(t, res.Header.Get(idempotency.ReplayedHeader))
	assert.Equal(t, 1, rows(t, db, "items"))
	assert.Equal(t, 1, rows(t, db, idempotency.Table))
}

// A route given Route() in a context without the plugin fails at Ready.
func TestRouteNeedsThePlugin(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/items", func(context.Context, struct{}) (string, error) { return "", nil }, idempotency.Route())
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs service *idempotency.call, which no context provides")
}

// userOf is the request's user, a request value built from X-User.
type userOf string

// IdentityOf takes the identity from a request value: two users' keys
// are two keys.
func TestIdentityOfARequestValue(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	setup(t, db, idempotency.SQLite)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.KeepOpen()))
	type userIn struct {
		app.In
		Req *httpx.Request
	}
	s.ProvideRequest(app.Provider(func(_ context.Context, in userIn) (userOf, func(bool) error, error) {
		return userOf(in.Req.Header("X-User")), nil, nil
	}))
	s.Register(idempotency.Plugin(idempotency.SQL(idempotency.SQLite), idempotency.IdentityOf(func(u userOf) string { return string(u) })))
	var serial atomic.Int64
	app.Post(s, "/items", func(ctx context.Context, in createIn) (item, error) {
		return item{Name: in.Body.Name, Serial: serial.Add(1)}, nil
	}, idempotency.Route())
	require.NoError(t, s.Ready())
	send := func(user string) *apptest.Response {
		return apptest.Do(t, s, "POST", "/items", strings.NewReader(`{"name":"a"}`),
			"Content-Type", "application/json", "X-User", user, idempotency.Header, "k")
	}
	ann1, bob, ann2 := send("ann"), send("bob"), send("ann")
	assert.NotEqual(t, ann1.Body, bob.Body, "another user's key")
	assert.Equal(t, ann1.Body, ann2.Body)
	assert.Equal(t, "true", ann2.Header.Get(idempotency.ReplayedHeader))
}

// A route whose handler reads the body itself: the plugin reads it first
// (at most MaxBody), fingerprints it, and hands it on.
func TestBodyTheHandlerReads(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	setup(t, db, idempotency.SQLite)
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(sqldb.Plugin(db, sqldb.KeepOpen()))
	s.Register(idempotency.Plugin(idempotency.SQL(idempotency.SQLite), idempotency.MaxBody(8)))
	var runs atomic.Int64
	type rawIn struct {
		app.In
		Tx  *sql.Tx
		Req *httpx.Request
	}
	app.Post(s, "/raw", func(_ context.Context, in rawIn) (string, error) {
		b, err := io.ReadAll(in.Req.Raw().Body)
		return fmt.Sprintf("%d: %s", runs.Add(1), b), err
	}, idempotency.Route())
	require.NoError(t, s.Ready())
	send := func(body string) *apptest.Response {
		return apptest.Do(t, s, "POST", "/raw", strings.NewReader(body), idempotency.Header, "k")
	}
	first := send("12345678")
	assert.Equal(t, http.StatusOK, first.StatusCode)
	assert.Equal(t, "1: 12345678", first.Body, "the handler read the whole body")
	assert.Equal(t, first.Body, send("12345678").Body, "replayed")
	assert.Equal(t, http.StatusUnprocessableEntity, send("1234567X").StatusCode, "the body is fingerprinted")
	assert.Equal(t, http.StatusRequestEntityTooLarge, send("123456789").StatusCode)
	assert.Equal(t, int64(1), runs.Load())
}

// Route declares the answers it adds, 409 and 422.
func TestRouteDeclaresItsAnswers(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	setup(t, db, idempotency.SQLite)
	sv := newService(t, db, idempotency.SQLite)
	for _, r := range sv.s.Routes() {
		if r.Method != "POST" || r.Path != "/items" {
			continue
		}
		var statuses []int
		for _, res := range r.Responses {
			statuses = append(statuses, res.Status)
		}
		assert.Subset(t, statuses, []int{http.StatusCreated, http.StatusConflict, http.StatusUnprocessableEntity})
		return
	}
	t.Fatal("no route POST /items")
}

// A plugin without a store, or with a TTL or MaxBody that is not
// positive, fails Ready.
func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		store idempotency.Store
		opts  []idempotency.Option
		err   string
	}{
		{"no store", idempotency.Store{}, nil, "needs a store"},
		{"TTL", idempotency.SQL(idempotency.SQLite), []idempotency.Option{idempotency.TTL(0)}, "TTL 0s is not positive"},
		{"MaxBody", idempotency.SQL(idempotency.SQLite), []idempotency.Option{idempotency.MaxBody(-1)}, "MaxBody -1 is not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			s.Register(idempotency.Plugin(tt.store, tt.opts...))
			assert.ErrorContains(t, s.Ready(), tt.err)
		})
	}
}

// A replay carries its own request id, not the first answer's.
func TestReplayKeepsItsOwnRequestID(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	setup(t, db, idempotency.SQLite)
	s := apptest.New(t, app.WithoutRequestLogging(), app.WithRequestIDResponseHeader("X-Request-Id"))
	s.Register(sqldb.Plugin(db, sqldb.KeepOpen()))
	s.Register(idempotency.Plugin(idempotency.SQL(idempotency.SQLite)))
	app.Post(s, "/items", func(ctx context.Context, in createIn) (item, error) { return in.Body, nil }, idempotency.Route())
	require.NoError(t, s.Ready())
	send := func() *apptest.Response {
		return apptest.Do(t, s, "POST", "/items", strings.NewReader(`{"name":"a"}`),
			"Content-Type", "application/json", idempotency.Header, "k")
	}
	first, again := send(), send()
	require.Equal(t, "true", again.Header.Get(idempotency.ReplayedHeader))
	assert.NotEmpty(t, first.Header.Get("X-Request-Id"))
	assert.NotEmpty(t, again.Header.Get("X-Request-Id"))
	assert.NotEqual(t, first.Header.Get("X-Request-Id"), again.Header.Get("X-Request-Id"))
	assert.Equal(t, first.Header.Get("Content-Type"), again.Header.Get("Content-Type"))
}
