// Package pgxdb makes a pgx v5 pool (pgxpool) a plugin: the pool is a
// service of the context the plugin is registered in, each request that
// takes a pgx.Tx gets its own transaction — committed when the request
// succeeds, rolled back when it fails, panics, times out or its client
// goes away — and the pool is closed once the server has drained, never
// before the cleanup of a transaction still open. Check adds a readiness
// check, Metrics the pool's gauges, and Tracer makes OpenTelemetry spans
// of the queries.
//
// The package is called pgxdb, not pgxpool, so that it does not shadow
// pgx's own package in the files that use both.
package pgxdb
