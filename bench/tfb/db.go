package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	_ "modernc.org/sqlite" // pure-Go SQLite, driver "sqlite"

	"github.com/burrow-go/burrow/app"
)

// pragmas are the DSN parameters the benchmark's contract fixes for every
// server, run on each new connection: wait for a lock rather than fail,
// WAL (readers and the writer do not block each other), no fsync (the
// file is made anew for every run; no request waits for the disk).
const pragmas = "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"

// worldRows is the size of table World: ids 1..worldRows, and the range
// of every randomNumber.
const worldRows = 10000

// world is a row of table World, as /db, /queries and /updates answer it.
type world struct {
	ID           int `json:"id"`
	RandomNumber int `json:"randomNumber"`
}

// fortune is a row of table Fortune.
type fortune struct {
	ID      int
	Message string
}

// database is the service the routes share: a pool of readers and a pool
// of one writer on the same file, and the three statements, prepared once.
// SQLite has one writer at a time; a one-connection pool queues writes in
// Go instead of in SQLite's busy handler, which sleeps. Every call goes
// without a context: with one that can be cancelled, database/sql starts
// a goroutine per query to watch it, and no query here is long enough to
// be worth stopping.
type database struct {
	read, write *sql.DB
	worldByID   *sql.Stmt // on read
	allFortunes *sql.Stmt // on read
	setNumber   *sql.Stmt // on write
}

// openDatabase opens file, which must hold the benchmark's tables, read
// and write, and prepares the statements. Readers are 4 × GOMAXPROCS.
func openDatabase(file string) (*database, error) {
	db := &database{}
	if err := db.open(file); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (db *database) open(file string) (err error) {
	dsn := file + "?" + pragmas
	if db.read, err = sql.Open("sqlite", dsn); err != nil {
		return err
	}
	readers := 4 * runtime.GOMAXPROCS(0)
	db.read.SetMaxOpenConns(readers)
	db.read.SetMaxIdleConns(readers)
	if db.write, err = sql.Open("sqlite", dsn); err != nil {
		return err
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	// sql.Open connects lazily: a missing file or table is found here,
	// at start-up, rather than by the first request.
	var rows int
	if err = db.read.QueryRow("SELECT count(*) FROM World").Scan(&rows); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if rows != worldRows {
		return fmt.Errorf("%s: table World has %d rows, want %d", file, rows, worldRows)
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		pool *sql.DB
		text string
	}{
		{&db.worldByID, db.read, "SELECT id, randomNumber FROM World WHERE id = ?"},
		{&db.allFortunes, db.read, "SELECT id, message FROM Fortune"},
		{&db.setNumber, db.write, "UPDATE World SET randomNumber = ? WHERE id = ?"},
	} {
		if *p.stmt, err = p.pool.Prepare(p.text); err != nil {
			return fmt.Errorf("%s: preparing %q: %w", file, p.text, err)
		}
	}
	return nil
}

// Close closes the statements and both pools (those openDatabase got to).
func (db *database) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{db.worldByID, db.allFortunes, db.setNumber} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, pool := range []*sql.DB{db.read, db.write} {
		if pool != nil {
			errs = append(errs, pool.Close())
		}
	}
	return errors.Join(errs...)
}

// randomNumber is a random id or randomNumber, 1..worldRows.
func randomNumber() int {
	return rand.IntN(worldRows) + 1 // #nosec G404 -- benchmark data, not a secret
}

// readWorld reads the row of a random id into w: one query. The caller
// owns w, so a route answering one row allocates it once, as its reply.
func (db *database) readWorld(w *world) error {
	return db.worldByID.QueryRow(randomNumber()).Scan(&w.ID, &w.RandomNumber)
}

// randomWorlds reads n random rows, one query each.
func (db *database) randomWorlds(n int) ([]world, error) {
	rows := make([]world, n)
	for i := range rows {
		if err := db.readWorld(&rows[i]); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// updateWorlds reads n random rows, gives each a new random number and
// writes them in one transaction on the writer, one UPDATE per row. It
// answers the rows as written.
func (db *database) updateWorlds(n int) ([]world, error) {
	rows, err := db.randomWorlds(n)
	if err != nil {
		return nil, err
	}
	tx, err := db.write.Begin()
	if err != nil {
		return nil, err
	}
	update := tx.Stmt(db.setNumber)
	for i := range rows {
		rows[i].RandomNumber = randomNumber()
		if _, err := update.Exec(rows[i].RandomNumber, rows[i].ID); err != nil {
			return nil, errors.Join(err, tx.Rollback())
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return rows, nil
}

// extraFortune is the fortune /fortunes adds to the table's at request time.
const extraFortune = "Additional fortune added at request time."

// fortunes reads table Fortune (one query), adds extraFortune and sorts
// the lot by message, in the byte order of the UTF-8 text.
func (db *database) fortunes() ([]fortune, error) {
	rows, err := db.allFortunes.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := make([]fortune, 0, 16)
	for rows.Next() {
		var f fortune
		if err := rows.Scan(&f.ID, &f.Message); err != nil {
			return nil, err
		}
		list = append(list, f)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	list = append(list, fortune{ID: 0, Message: extraFortune})
	slices.SortFunc(list, func(a, b fortune) int { return cmp.Compare(a.Message, b.Message) })
	return list, nil
}

// dbPlugin opens the database file when the server starts and provides it
// as the *database service, closing it when the server closes. It is
// wrapped, so the service lands in the context that registers it and is
// visible to that context's plugins.
func dbPlugin(file string) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		db, err := openDatabase(file)
		if err != nil {
			return err
		}
		if err := s.OnClose(func(context.Context) error { return db.Close() }); err != nil {
			db.Close()
			return err
		}
		return s.Decorate(db)
	}, app.Name("db"))
}
