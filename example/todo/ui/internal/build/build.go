// Package build turns the page's source files into the files served:
// assets named after their content's hash, index.html pointing at them,
// and precompressed siblings of each file.
package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Dir builds dst from src: src/index.html and the assets beside it.
func Dir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dst, "assets"), 0o750); err != nil {
		return err
	}
	var index []byte
	renames := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name())) // #nosec G304 -- a file of the source folder the developer names
		if err != nil {
			return err
		}
		if e.Name() == "index.html" {
			index = b
			continue
		}
		hashed := Hashed(e.Name(), b)
		renames["/assets/"+e.Name()] = "/assets/" + hashed
		if err := write(filepath.Join(dst, "assets", hashed), b); err != nil {
			return err
		}
	}
	if index == nil {
		return fmt.Errorf("%s has no index.html", src)
	}
	// Longest names first, so that no name is replaced inside another.
	names := make([]string, 0, len(renames))
	for n := range renames {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if !bytes.Contains(index, []byte(`"`+n+`"`)) {
			return fmt.Errorf("index.html does not use %s", n)
		}
		index = bytes.ReplaceAll(index, []byte(`"`+n+`"`), []byte(`"`+renames[n]+`"`))
	}
	return write(filepath.Join(dst, "index.html"), index)
}

// Hashed returns name with the first 8 bytes of its content's SHA-256,
// in hex, before its extension: app.js → app.0123456789abcdef.js.
func Hashed(name string, content []byte) string {
	sum := sha256.Sum256(content)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:8]) + ext
}

// write writes b to name, and its .gz, .br and .zst siblings, each
// compressed at its best level: they are made once, served many times.
// Every compressor is a pinned module, not the standard library, so that
// dist/ is the same bytes whichever Go release builds it (compress/flate's
// output is not promised to stay the same from one release to the next).
func write(name string, b []byte) error {
	if err := os.WriteFile(name, b, 0o600); err != nil { // #nosec G703 -- under the output folder the developer names
		return err
	}
	for _, c := range []struct {
		ext string
		new func(io.Writer) (io.WriteCloser, error)
	}{
		{".gz", func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.BestCompression) }},
		{".br", func(w io.Writer) (io.WriteCloser, error) {
			return brotli.NewWriterLevel(w, brotli.BestCompression), nil
		}},
		{".zst", func(w io.Writer) (io.WriteCloser, error) {
			return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		}},
	} {
		var buf bytes.Buffer
		w, err := c.new(&buf)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := os.WriteFile(name+c.ext, buf.Bytes(), 0o600); err != nil { // #nosec G703 -- beside name
			return err
		}
	}
	return nil
}
