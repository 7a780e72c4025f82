package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
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

// openDB opens the SQLite database at path, or a fresh in-memory one when
// path is empty (or SQLite's own name for one, ":memory:"), and applies
// the schema.
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
	if _, err := db.ExecContext(ctx, schema); err != nil {
		_ = db.Close()
		if path == "" {
			return nil, fmt.Errorf("creating the in-memory database: %w", err)
		}
		return nil, fmt.Errorf("opening the database %s: %w", path, err)
	}
	return db, nil
}

func pragmas(p ...string) string { return strings.Join(p, "&") }

// addUsers makes sure every name has a row and returns their ids in the
// order given. Names keep their rows across runs, so a user's todos in a
// database file survive a change of token.
func addUsers(ctx context.Context, db *sql.DB, names []string) ([]int64, error) {
	ids := make([]int64, len(names))
	for i, name := range names {
		if _, err := db.ExecContext(ctx, `INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING`, name); err != nil {
			return nil, fmt.Errorf("adding user %q: %w", name, err)
		}
		if err := db.QueryRowContext(ctx, `SELECT id FROM users WHERE name = ?`, name).Scan(&ids[i]); err != nil {
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
	q    querier
	user int64
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
	rows, err := t.q.QueryContext(ctx, query, args...)
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
	err := t.q.QueryRowContext(ctx, `INSERT INTO todos (user_id, title, done) VALUES (?, ?, ?) RETURNING id`,
		t.user, title, done).Scan(&td.ID)
	if err != nil {
		return todo{}, conflict(err, title)
	}
	return td, nil
}

// get returns the todo id.
func (t todos) get(ctx context.Context, id int64) (todo, error) {
	td := todo{ID: id}
	err := t.q.QueryRowContext(ctx, `SELECT title, done FROM todos WHERE id = ? AND user_id = ?`, id, t.user).
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
		`UPDATE todos SET title = coalesce(?, title), done = coalesce(?, done) WHERE id = ? AND user_id = ? RETURNING title, done`,
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
	res, err := t.q.ExecContext(ctx, `DELETE FROM todos WHERE id = ? AND user_id = ?`, id, t.user)
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
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE {
		return fmt.Errorf("%w: %q", errConflict, title)
	}
	return err
}
