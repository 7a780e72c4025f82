package idempotency

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/burrow-go/burrow/app"
)

// Table is the table the SQL store keeps its records in.
const Table = "idempotency_keys"

// Dialect is what the SQL store needs to know of a database: Postgres
// or SQLite.
type Dialect struct {
	name string
	blob string // the type of the body's column
	// lock: a repeat on another connection is told apart from a first
	// request through a transaction-scoped advisory lock, so that it is
	// answered 409 instead of waiting on the first one's row.
	lock bool
}

// The dialects the SQL store speaks.
var (
	// Postgres is PostgreSQL, through any database/sql driver (pgx's
	// stdlib). A repeat while the first request runs is answered 409 at
	// once, on any instance sharing the database: the first holds an
	// advisory lock on the key until its transaction ends. The
	// transaction must be READ COMMITTED (PostgreSQL's default).
	Postgres = Dialect{name: "PostgreSQL", blob: "BYTEA", lock: true}
	// SQLite is SQLite. Its write transactions take turns: a repeat
	// waits for the first request to end, then is answered from its
	// record. Begin write transactions IMMEDIATE (modernc.org/sqlite's
	// _txlock=immediate), or a repeat may fail with SQLITE_BUSY.
	SQLite = Dialect{name: "SQLite", blob: "BLOB"}
)

// String is the database's name.
func (d Dialect) String() string { return d.name }

// Schema is the statement that creates the SQL store's table, if it is
// missing; CreateTable runs it.
func (d Dialect) Schema() string {
	return `CREATE TABLE IF NOT EXISTS ` + Table + ` (
	key         TEXT PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	status      INTEGER,
	header      TEXT,
	body        ` + d.blob + `,
	expires_at  BIGINT NOT NULL
)`
}

// CreateTable creates the SQL store's table in db, if it is missing.
func CreateTable(ctx context.Context, db *sql.DB, d Dialect) error {
	if _, err := db.ExecContext(ctx, d.Schema()); err != nil {
		return fmt.Errorf("creating the table %s: %w", Table, err)
	}
	return nil
}

// DeleteExpired deletes the records whose keys have expired, and
// returns how many. Expired records are also replaced when their key
// comes again; run it now and then to keep the table small.
func DeleteExpired(ctx context.Context, db *sql.DB) (int64, error) {
	res, err := db.ExecContext(ctx, `DELETE FROM `+Table+` WHERE expires_at <= $1`, time.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("deleting expired idempotency keys: %w", err)
	}
	return res.RowsAffected()
}

// SQL is the store that keeps records in the request's transaction, the
// *sql.Tx request value (plugins/sqldb provides one), in Table
// (CreateTable): the key is claimed, and its answer recorded, in the
// transaction of the handler's own writes, and they commit or roll back
// together.
func SQL(d Dialect) Store {
	return NewStore(func(_ context.Context, in sqlIn) (Records, error) {
		return SQLRecords(sqlTx{in.Tx}, d), nil
	})
}

type sqlIn struct {
	app.In
	Tx *sql.Tx
}

// Querier is what the SQL records need of a transaction, whatever its
// client: pgx's (plugins/idempotency/pgxstore) or database/sql's.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query that returns one row.
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Row is one row of a query's result.
type Row interface {
	Scan(dest ...any) error
}

// SQLRecords is the SQL store's Records over q, the request's
// transaction, for a store of another client's transaction (NewStore).
func SQLRecords(q Querier, d Dialect) Records { return &sqlRecords{tx: q, d: d} }

// sqlTx is a *sql.Tx as a Querier.
type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t sqlTx) QueryRow(ctx context.Context, query string, args ...any) Row {
	return t.tx.QueryRowContext(ctx, query, args...)
}

type sqlRecords struct {
	tx Querier
	d  Dialect
}

func (r *sqlRecords) Claim(ctx context.Context, key, fingerprint string, ttl time.Duration) (*Record, error) {
	if r.d.lock {
		var locked bool
		if err := r.tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, lockID(key)).Scan(&locked); err != nil {
			return nil, err
		}
		if !locked {
			return nil, ErrInFlight
		}
	}
	now := time.Now()
	expires := now.Add(ttl).UnixMilli()
	n, err := r.tx.Exec(ctx, `INSERT INTO `+Table+` (key, fingerprint, expires_at) VALUES ($1, $2, $3)
ON CONFLICT (key) DO NOTHING`, key, fingerprint, expires)
	if err != nil || n == 1 {
		return nil, err
	}
	var (
		rec    Record
		status sql.NullInt64
		header sql.NullString
		until  int64
	)
	err = r.tx.QueryRow(ctx, `SELECT fingerprint, status, header, body, expires_at FROM `+Table+` WHERE key = $1`, key).
		Scan(&rec.Fingerprint, &status, &header, &rec.Body, &until)
	if err != nil {
		return nil, err
	}
	if until <= now.UnixMilli() {
		_, err := r.tx.Exec(ctx, `UPDATE `+Table+` SET fingerprint = $2, status = NULL, header = NULL, body = NULL, expires_at = $3
WHERE key = $1`, key, fingerprint, expires)
		return nil, err
	}
	if status.Valid {
		rec.Done, rec.Status = true, int(status.Int64)
		if header.Valid {
			if err := json.Unmarshal([]byte(header.String), &rec.Header); err != nil {
				return nil, fmt.Errorf("reading the record's headers: %w", err)
			}
		}
	}
	return &rec, nil
}

func (r *sqlRecords) Complete(ctx context.Context, key string, rec *Record) error {
	var header any // NULL for none
	if len(rec.Header) > 0 {
		b, err := json.Marshal(rec.Header)
		if err != nil {
			return err
		}
		header = string(b)
	}
	body := rec.Body
	if body == nil {
		body = []byte{} // an empty body, not an answer still to come
	}
	_, err := r.tx.Exec(ctx, `UPDATE `+Table+` SET status = $2, header = $3, body = $4 WHERE key = $1`,
		key, rec.Status, header, body)
	return err
}

// Release has nothing to do: the transaction's rollback removes the
// claim.
func (r *sqlRecords) Release(context.Context, string) error { return nil }

// lockID is the advisory lock of key: 64 bits of its hash, under the
// table's name, so that it does not meet the application's own locks
// but by chance.
func lockID(key string) int64 {
	h := fnv.New64a()
	h.Write([]byte(Table + "\x00" + key))
	return int64(binary.BigEndian.Uint64(h.Sum(nil))) // #nosec G115 -- a hash, any bits will do
}
