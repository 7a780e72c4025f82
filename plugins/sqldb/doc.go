// Package sqldb makes a database/sql pool a plugin: the pool is a
// service of the context the plugin is registered in, each request that
// takes a *sql.Tx gets its own transaction — committed when the request
// succeeds, rolled back when it fails, panics, times out or its client
// goes away — and the pool is closed once the server has drained, never
// before the cleanup of a transaction still open.
//
// Any driver works: SQLite (modernc.org/sqlite), PostgreSQL through
// pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib), and the
// others. Spans of the queries are the driver's to make (pgx's tracer,
// for one); the readiness check pings the pool (Check).
//
// The package is called sqldb, not sql, so that it does not shadow
// database/sql in the files that use both.
package sqldb
