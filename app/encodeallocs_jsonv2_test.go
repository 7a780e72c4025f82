//go:build goexperiment.jsonv2

package app_test

// replyCopyAllocs is what encoding/json allocates beyond the bytes it
// writes to encode a reply value handed over as an interface: backed by
// encoding/json/v2 (Go 1.27), it copies a value that is not a pointer to
// make it addressable, one allocation.
const replyCopyAllocs = 1
