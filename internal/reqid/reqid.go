// Package reqid makes the ids Burrow gives requests whose client sent
// none. httpx's Request.ID makes them when a handler asks; the app
// package makes them earlier for a request it logs before the request
// begins (one answered through middleware): both must write the same.
package reqid

import "strconv"

// Of is the id of the request numbered seq: "req-" and seq in base 36.
func Of(seq uint64) string { return "req-" + strconv.FormatUint(seq, 36) }
