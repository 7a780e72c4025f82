package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/sqldb"
)

// db is the database as the handlers see it: one *sql.DB and the one
// place where SQLite and PostgreSQL differ. Queries are written once,
// with ? placeholders; PostgreSQL's are numbered by q.
type db struct {
	*sql.DB
	postgres bool
}

// q returns query with its placeholders in the database's syntax.
func (d *db) q(query string) string {
	if !d.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// memoryDBs numbers the in-memory databases of the process, so that two
// servers in one process (tests) never share one.
var memoryDBs atomic.Int64

// openDB opens dsn: a postgres:// URL, or a SQLite file ("" for a fresh
// in-memory database), and applies the migrations.
func openDB(ctx context.Context, dsn string) (*db, error) {
	d := &db{}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		d.postgres = true
		d.DB, err = sql.Open("pgx", dsn)
		if err == nil {
			d.SetMaxOpenConns(20)
			d.SetMaxIdleConns(20)
		}
	default:
		file := dsn
		if file == "" {
			// An in-memory database of its own, alive while a connection
			// is (the pool keeps its one connection).
			file = fmt.Sprintf("file:conduit-%d?mode=memory&cache=shared", memoryDBs.Add(1))
		}
		sep := "?"
		if strings.Contains(file, "?") {
			sep = "&"
		}
		d.DB, err = sql.Open("sqlite", file+sep+"_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		if err == nil {
			// SQLite has one writer: one connection queues the
			// transactions in Go instead of in SQLite's busy handler.
			d.SetMaxOpenConns(1)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := d.PingContext(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("opening the database: %w", err)
	}
	if err := d.migrate(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// migrations are applied in order, each once, recorded in
// schema_migrations. {id} is the dialect's auto-increment key.
var migrations = []string{
	`CREATE TABLE users (
		id {id},
		username TEXT NOT NULL UNIQUE,
		email TEXT NOT NULL UNIQUE,
		password_hash TEXT NOT NULL,
		bio TEXT,
		image TEXT
	)`,
	`CREATE TABLE follows (
		follower_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		followee_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		PRIMARY KEY (follower_id, followee_id)
	)`,
	`CREATE TABLE articles (
		id {id},
		slug TEXT NOT NULL UNIQUE,
		title TEXT NOT NULL,
		description TEXT NOT NULL,
		body TEXT NOT NULL,
		author_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL
	)`,
	`CREATE INDEX articles_created ON articles (created_at DESC, id DESC)`,
	`CREATE TABLE article_tags (
		article_id BIGINT NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
		tag TEXT NOT NULL,
		PRIMARY KEY (article_id, tag)
	)`,
	`CREATE INDEX article_tags_tag ON article_tags (tag)`,
	`CREATE TABLE favorites (
		user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		article_id BIGINT NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
		PRIMARY KEY (user_id, article_id)
	)`,
	`CREATE INDEX favorites_article ON favorites (article_id)`,
	`CREATE TABLE comments (
		id {id},
		article_id BIGINT NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
		author_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
		body TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL
	)`,
}

// migrate applies the migrations not applied yet, each in its own
// transaction. Several instances starting at once on one PostgreSQL
// database take turns through an advisory lock.
func (d *db) migrate(ctx context.Context) error {
	conn, err := d.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if d.postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(4242)`); err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(4242)`)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	var done int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&done); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	id := "INTEGER PRIMARY KEY"
	if d.postgres {
		id = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
	}
	for v := done; v < len(migrations); v++ {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, strings.ReplaceAll(migrations[v], "{id}", id)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO schema_migrations (version) VALUES (?)`), v+1); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}

// tx is a request's transaction (plugins/sqldb's *sql.Tx) with the
// database's dialect: begun the first time a handler of the request
// needs it, committed when the request succeeds, rolled back when it
// fails. Handlers take it as an In field.
type tx struct {
	*sql.Tx
	d *db
}

// q is db.q.
func (t tx) q(query string) string { return t.d.q(query) }

type txIn struct {
	app.In
	DB *db
	Tx *sql.Tx
}

// dbPlugin provides the database to the whole API, and each request's
// transaction (plugins/sqldb). It is wrapped: what it provides lands in
// the context that registers it. The pool stays the caller's to close.
func dbPlugin(d *db) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Register(sqldb.Plugin(d.DB, sqldb.KeepOpen())); err != nil {
			return err
		}
		if err := s.Decorate(d); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(func(_ context.Context, in txIn) (tx, func(failed bool) error, error) {
			return tx{Tx: in.Tx, d: in.DB}, nil, nil
		}))
	}, app.Name("db"))
}
