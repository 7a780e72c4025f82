package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/burrow-go/burrow/plugins/idempotency"
)

// errNotFound and errConflict are what the store fails with when the
// caller's request cannot be met; the error handler turns them into 404
// and 409. Anything else the store returns is a failure of the database.
// errNotFound says nothing of the id: whether the todo is missing or
// another user's, the answer must be the same.
var (
	errNotFound = errors.New("todo not found")
	errConflict = errors.New("title already used")
)

// schema is applied at every start; it only creates what is missing, so
// a database file keeps its todos across runs. Titles are unique per
// user, compared byte for byte (SQLite's default BINARY collation, so
// "Milk" and "milk" are two titles). AUTOINCREMENT keeps a deleted id
// from being given again: a client holding /todos/7 never sees another
// todo there.
const schema = `
CREATE TABLE IF NOT EXISTS users (
	id   INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS todos (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES users(id),
	title   TEXT NOT NULL,
	done    INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
	UNIQUE (user_id, title)
);`

// pgSchema is schema on PostgreSQL: the same tables, with a boolean, and
// todo ids from a counter row rather than a sequence. A sequence is not
// rolled back with its transaction: a refused batch would use up ids,
// where SQLite's AUTOINCREMENT gives them again after a rollback (and
// never after a commit). The counter row is, and is never decreased, so
// ids are the same on both databases. The row lock it takes serializes
// the creation of todos, which a todo list can afford.
const pgSchema = `
CREATE TABLE IF NOT EXISTS users (
	id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS todo_ids (
	one  BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
	last BIGINT NOT NULL
);
INSERT INTO todo_ids (last) VALUES (0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS todos (
	id      BIGINT PRIMARY KEY,
	user_id BIGINT NOT NULL REFERENCES users(id),
	title   TEXT NOT NULL,
	done    BOOLEAN NOT NULL DEFAULT false,
	UNIQUE (user_id, title)
);`

// pgInsert is create's INSERT on PostgreSQL: the next id from the
// counter row, in the request's transaction.
const pgInsert = `WITH n AS (UPDATE todo_ids SET last = last + 1 RETURNING last)
INSERT INTO todos (id, user_id, title, done) SELECT last, ?, ?, ? FROM n RETURNING id`

// openDB opens the database path names: a postgres:// URL, or a SQLite
// file, or a fresh in-memory SQLite database when path is empty (or
// SQLite's own name for one, ":memory:"); and applies the schema. The
// store's statements are written once, for both: the differences are
// the schema, the placeholders (postgres rebinds them) and the error of
// a duplicate title (conflict).
//
// An in-memory SQLite database lives and dies with its connection: a
// second connection of the pool would see another, empty, database. So
// the in-memory pool is pinned to one connection, never closed while
// idle. A file gets WAL (readers do not wait for the writer), a busy
// time-out, and transactions that take the write lock when they begin
// (_txlock=immediate): a deferred transaction that reads and then writes
// can fail at once with SQLITE_BUSY when another writer went first,
// where an immediate one waits its turn.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") {
		return openPostgres(ctx, path)
	}
	if path == ":memory:" {
		path = ""
	}
	var dsn string
	if path == "" {
		dsn = "file::memory:?" + pragmas("_pragma=foreign_keys(1)")
	} else {
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath() + "?" +
			pragmas("_pragma=foreign_keys(1)", "_pragma=journal_mode(WAL)", "_pragma=busy_timeout(5000)", "_txlock=immediate")
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	if path == "" {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	}
	if _, err := db.ExecContext(ctx, schema+";\n"+idempotency.SQLite.Schema()); err != nil {
		_ = db.Close()
		if path == "" {
			return nil, fmt.Errorf("creating the in-memory database: %w", err)
		}
		return nil, fmt.Errorf("opening the database %s: %w", path, err)
	}
	return db, nil
}

func pragmas(p ...string) string { return strings.Join(p, "&") }

// openPostgres opens the PostgreSQL database at url through pgx's
// database/sql driver, so that the store's code is the same on both
// databases, and applies the schema. Instances starting together on one
// database take turns through an advisory lock.
func openPostgres(ctx context.Context, url string) (*sql.DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, `SELECT pg_advisory_lock(7470)`)
		if err == nil {
			_, err = conn.ExecContext(ctx, pgSchema+";\n"+idempotency.Postgres.Schema())
			_, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7470)`)
			err = errors.Join(err, uerr)
		}
		err = errors.Join(err, conn.Close())
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening the PostgreSQL database: %w", err)
	}
	return db, nil
}

// postgres reports whether db is a PostgreSQL database, whose
// placeholders are $1, $2, … where SQLite's are ?.
func postgres(db *sql.DB) bool {
	_, ok := db.Driver().(*stdlib.Driver)
	return ok
}

// keysDialect is db's, for the Idempotency-Key records: the table
// openDB creates beside the todos.
func keysDialect(db *sql.DB) idempotency.Dialect {
	if postgres(db) {
		return idempotency.Postgres
	}
	return idempotency.SQLite
}

// rebind returns query with its ? placeholders numbered, for PostgreSQL.
func rebind(query string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// addUsers makes sure every name has a row and returns their ids in the
// order given. Names keep their rows across runs, so a user's todos in a
// database file survive a change of token.
func addUsers(ctx context.Context, db *sql.DB, names []string) ([]int64, error) {
	ids := make([]int64, len(names))
	t := todos{q: db, postgres: postgres(db)}
	for i, name := range names {
		if _, err := db.ExecContext(ctx, t.sql(`INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING`), name); err != nil {
			return nil, fmt.Errorf("adding user %q: %w", name, err)
		}
		if err := db.QueryRowContext(ctx, t.sql(`SELECT id FROM users WHERE name = ?`), name).Scan(&ids[i]); err != nil {
			return nil, fmt.Errorf("adding user %q: %w", name, err)
		}
	}
	return ids, nil
}

// todo is a todo as the API shows it.
type todo struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

// querier is what the store needs of a *sql.DB or a *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// todos is one user's todos, read and written through q. Every statement
// names the user: another user's todo is not found, exactly as a missing
// one, so ids leak nothing.
type todos struct {
	q        querier
	user     int64
	postgres bool
}

// sql returns query as the database writes it.
func (t todos) sql(query string) string {
	if t.postgres {
		return rebind(query)
	}
	return query
}

// list returns up to limit todos after skipping offset, ordered by id;
// done, when not nil, keeps only the todos in that state.
func (t todos) list(ctx context.Context, limit, offset int, done *bool) ([]todo, error) {
	query := `SELECT id, title, done FROM todos WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?`
	args := []any{t.user, limit, offset}
	if done != nil {
		query = `SELECT id, title, done FROM todos WHERE user_id = ? AND done = ? ORDER BY id LIMIT ? OFFSET ?`
		args = []any{t.user, *done, limit, offset}
	}
	rows, err := t.q.QueryContext(ctx, t.sql(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := make([]todo, 0, limit)
	for rows.Next() {
		var td todo
		if err := rows.Scan(&td.ID, &td.Title, &td.Done); err != nil {
			return nil, err
		}
		list = append(list, td)
	}
	return list, rows.Err()
}

// create adds a todo.
func (t todos) create(ctx context.Context, title string, done bool) (todo, error) {
	td := todo{Title: title, Done: done}
	insert := `INSERT INTO todos (user_id, title, done) VALUES (?, ?, ?) RETURNING id`
	if t.postgres {
		insert = pgInsert
	}
	err := t.q.QueryRowContext(ctx, t.sql(insert), t.user, title, done).Scan(&td.ID)
	if err != nil {
		return todo{}, conflict(err, title)
	}
	return td, nil
}

// get returns the todo id.
func (t todos) get(ctx context.Context, id int64) (todo, error) {
	td := todo{ID: id}
	err := t.q.QueryRowContext(ctx, t.sql(`SELECT title, done FROM todos WHERE id = ? AND user_id = ?`), id, t.user).
		Scan(&td.Title, &td.Done)
	if errors.Is(err, sql.ErrNoRows) {
		return todo{}, errNotFound
	}
	return td, err
}

// update sets the fields that are not nil and returns the todo as it is
// now. With both nil it is a get.
func (t todos) update(ctx context.Context, id int64, title *string, done *bool) (todo, error) {
	td := todo{ID: id}
	err := t.q.QueryRowContext(ctx,
		t.sql(`UPDATE todos SET title = coalesce(?, title), done = coalesce(?, done) WHERE id = ? AND user_id = ? RETURNING title, done`),
		title, done, id, t.user).Scan(&td.Title, &td.Done)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return todo{}, errNotFound
	case err != nil && title != nil:
		return todo{}, conflict(err, *title)
	case err != nil:
		return todo{}, err
	}
	return td, nil
}

// remove deletes the todo id.
func (t todos) remove(ctx context.Context, id int64) error {
	res, err := t.q.ExecContext(ctx, t.sql(`DELETE FROM todos WHERE id = ? AND user_id = ?`), id, t.user)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return err
		}
		return errNotFound
	}
	return nil
}

// conflict turns the unique constraint's failure into errConflict and
// returns any other error as it is.
func conflict(err error, title string) error {
	var se *sqlite.Error
	var pe *pgconn.PgError
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE ||
		errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return fmt.Errorf("%w: %q", errConflict, title)
	}
	return err
}
