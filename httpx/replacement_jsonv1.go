//go:build !goexperiment.jsonv2

package httpx

// replacement is what encoding/json writes for each byte of invalid UTF-8
// in a string. Its original implementation, Go 1.26's, escapes the
// replacement character, so the output stays ASCII.
const replacement = `\ufffd`
