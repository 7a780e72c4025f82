//go:build !goexperiment.jsonv2

package app_test

// replyCopyAllocs is what encoding/json allocates beyond the bytes it
// writes to encode a reply value handed over as an interface: Go 1.26's
// encodes it where it is.
const replyCopyAllocs = 0
