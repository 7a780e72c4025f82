//go:build goexperiment.jsonv2

package httpx

// replacement is what encoding/json writes for each byte of invalid UTF-8
// in a string. Backed by encoding/json/v2, Go 1.27's default, it writes
// the replacement character itself, as UTF-8. Either way a client decodes
// the same U+FFFD; the bytes follow the toolchain so that an error body
// Burrow writes by hand and a reply encoding/json writes agree.
const replacement = "\ufffd"
