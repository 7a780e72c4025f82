// Package ui is the todo list's browser page, embedded in the binary:
// src/ holds the files as written, dist/ what is served, made from src/
// by `go generate` (gen/): each asset renamed after its content's hash,
// so that it can be cached for a year, index.html pointing at those
// names, and gzip, brotli and zstd siblings of every file, so that no
// request compresses anything.
package ui

import (
	"embed"
	"io/fs"
)

//go:generate go run ./gen src dist

//go:embed all:dist
var dist embed.FS

// FS returns the files to serve: index.html and assets/.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded: it is there
	}
	return sub
}
