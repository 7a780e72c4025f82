package app

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"reflect"
	"strings"
)

// File is a file a client uploaded in a part of a multipart/form-data
// body, for an In struct field tagged form:"name" of type *File (nil when
// the part is absent) or []*File (every part of that name). It is read
// before the handler runs, within the route's multipart limits: held in
// memory while the request's files fit the memory limit, in a temporary
// file past it, which Burrow removes when the request ends — the handler
// returned, answered or not, panicked, timed out or lost its client. A
// File, and what Open returns, is not to be used after that.
type File struct {
	// Filename is the name the client gave the file, without any
	// directory: only what follows the last slash or backslash is kept,
	// whatever the server's system, so "C:\x\r.pdf" and
	// "..\..\evil.exe" are "r.pdf" and "evil.exe". It may be empty: a
	// name that ends in a separator, "." and ".." name no file and are
	// kept as "". It names nothing on the server's disk and is the
	// client's word: check it before showing or storing it.
	Filename string
	// ContentType is the media type the client declared for the part,
	// "" when it declared none. It is the client's word, not a check of
	// the bytes.
	ContentType string
	// Size is the file's length in bytes.
	Size int64

	data []byte // the content, held in memory; or
	path string // the temporary file holding it
}

// baseName is what follows the last slash or backslash of name, the
// file name a part gave: a browser on Windows may send a whole path, an
// attacker a climbing one, and either separator is one on a system the
// name may reach. "." and "..", which name directories, are no name.
func baseName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	if name == "." || name == ".." {
		return ""
	}
	return name
}

// partFileName is the file name part gave, whole: Part.FileName cuts
// it at the separators of the server's system only (a backslash is none
// on Linux).
func partFileName(part *multipart.Part) string {
	if part.FileName() == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	if err != nil {
		return ""
	}
	return params["filename"]
}

// Open opens the file's content for reading. Each call reads it from the
// start; the caller closes what it returns.
func (f *File) Open() (io.ReadCloser, error) {
	if f.path == "" {
		return io.NopCloser(bytes.NewReader(f.data)), nil
	}
	return os.Open(f.path)
}

// remove removes f's temporary file, if it has one.
func (f *File) remove() error {
	if f == nil || f.path == "" {
		return nil
	}
	err := os.Remove(f.path) // #nosec G703 -- a temporary file this package made (os.CreateTemp)
	f.path = ""
	if errors.Is(err, os.ErrNotExist) {
		return nil // the handler moved it away
	}
	return err
}

var (
	typeFile      = reflect.TypeFor[File]()
	typeFilePtr   = reflect.TypeFor[*File]()
	typeFileSlice = reflect.TypeFor[[]*File]()
)

// fileType reports whether t is a type a file field may have, and
// whether it names a file at all (File by value, a pointer to a slice of
// files, … are files taken wrongly).
func fileType(t reflect.Type) (valid, isFile bool) {
	switch t {
	case typeFilePtr, typeFileSlice:
		return true, true
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return false, t == typeFile
}
