// Package goid tells which goroutine is running. Go hides goroutine
// identity on purpose, and nothing that serves requests should depend on
// it; the boot does, once per call made while it runs, to tell a plugin
// body that waits for its own boot (which would wait for itself) from
// another goroutine that waits for it to end.
package goid

import "runtime"

// Current is the running goroutine's number, as its stack trace's first
// line ("goroutine 42 [running]:") prints it; 0 if that line cannot be
// read. It costs a stack trace of one frame: about a microsecond.
func Current() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
