// Package river runs background jobs on River (riverqueue.com) inside a
// Burrow server: a client started at Ready and stopped at Close after the
// HTTP drain; workers that declare the services they need as a typed
// route does, checked at Ready; jobs inserted in the request's own
// transaction, so a request that fails enqueues nothing.
//
// River works on PostgreSQL (riverpgxv5, or riverdatabasesql over
// database/sql) and on SQLite (riversqlite, for development and tests).
// The guarantees are River's: a job runs at least once; inserted with
// InsertTx it exists only if the transaction commits; a worker that must
// act exactly once completes the job in its own transaction
// (river.JobCompleteTx) or makes its effect idempotent.
package river
