// Package idempotency makes creation safe to retry: a client sends an
// Idempotency-Key header (the IETF draft "The Idempotency-Key HTTP
// Header Field") with a POST or a PATCH, and a repeat of the request
// with the same key gets the first answer again instead of running a
// second time.
//
// The first request with a key runs. A repeat with the same key and the
// same request — method, path and query, body — from the same identity
// (Identity) is answered with the status, headers and body of the first
// answer, marked Idempotent-Replayed: true. The same key with another
// request is refused 422; a repeat while the first is still running,
// 409. A key is 1 to 255 visible ASCII characters (0x21 to 0x7E);
// anything else is refused 400. Keys expire (TTL, a day by default).
//
// Records are kept by a Store. With SQL, the record is written in the
// request's own transaction (the *sql.Tx of plugins/sqldb; the pgx.Tx of
// plugins/pgxdb with plugins/idempotency/pgxstore): the claim of
// the key, the handler's writes and the answer commit together, or
// vanish together — a request that failed leaves no record, so a retry
// runs again, and no crash can leave the writes without the record.
// Instances sharing one PostgreSQL database share the keys. A store
// outside the transaction (plugins/idempotency/redisstore) keeps the
// record next to the writes, not with them: the weaker guarantee, for
// handlers without a database transaction.
//
// Only the routes given Route() check keys:
//
//	s.Register(sqldb.Plugin(db))
//	s.Register(idempotency.Plugin(idempotency.SQL(idempotency.Postgres)))
//	app.Post(s, "/orders", create, idempotency.Route())
package idempotency
