package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

// precompressed are the sibling suffixes, in the server's preference:
// brotli compresses static text best, then zstd, then gzip.
var precompressed = []struct{ suffix, coding string }{
	{".br", "br"}, {".zst", "zstd"}, {".gz", "gzip"},
}

// file is one file to serve, as read at start-up.
type file struct {
	name     string   // its path in the fs.FS
	ctype    []string // Content-Type
	etag     []string
	cache    []string // Cache-Control
	modtime  time.Time
	content  []byte    // as read at start-up: what the ETag describes
	variants []variant // precompressed siblings, in preference order
	codings  []string  // their codings, for negotiation
}

type variant struct {
	name    string
	etag    []string
	content []byte
	coding  []string // Content-Encoding
}

// tree is what the plugin found in its fs.FS.
type tree struct {
	files map[string]*file // by path in the fs.FS
	dirs  []string         // every directory, "." the root
}

// load reads every file of fsys into memory, hashing each for its ETag.
// Files with a name routes cannot hold, and dotfiles unless asked, are
// left out; all the bytes kept stay within c.maxMemory.
func load(fsys fs.FS, c *config, started time.Time) (*tree, error) {
	t := &tree{files: map[string]*file{}}
	budget := c.maxMemory
	found := map[string]fs.FileInfo{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name != "." && hidden(d.Name(), c) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			t.dirs = append(t.dirs, name)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks and devices: only what the tree holds
		}
		if strings.ContainsAny(name, ":*\\") {
			return fmt.Errorf("static: %s: a name holding ':', '*' or '\\' cannot be a route; rename it", name)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		found[name] = info
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: reading the files: %w", err)
	}
	variantOf := map[string]bool{}
	for name := range found {
		for _, p := range precompressed {
			if base, ok := strings.CutSuffix(name, p.suffix); ok && found[base] != nil {
				variantOf[name] = true
			}
		}
	}
	names := make([]string, 0, len(found))
	for name := range found {
		if !variantOf[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := readFile(fsys, name, found[name], started, &budget, c.maxMemory)
		if err != nil {
			return nil, err
		}
		f.cache = []string{c.cache}
		if c.immutable(name) {
			f.cache = []string{ImmutableCache}
		}
		for _, p := range precompressed {
			if found[name+p.suffix] == nil {
				continue
			}
			v, err := readFile(fsys, name+p.suffix, found[name+p.suffix], started, &budget, c.maxMemory)
			if err != nil {
				return nil, err
			}
			f.variants = append(f.variants, variant{name: v.name, etag: v.etag, content: v.content, coding: []string{p.coding}})
			f.codings = append(f.codings, p.coding)
		}
		t.files[name] = f
	}
	return t, nil
}

// hidden reports whether a file or directory is left out as a dotfile.
func hidden(base string, c *config) bool {
	return strings.HasPrefix(base, ".") && !c.dotfiles && base != ".well-known"
}

// readFile reads name's content, which is served from memory from then
// on, and hashes it for its ETag: a file changed or replaced (by a
// symbolic link) on disk after start-up is never served. budget is what
// is left of limit.
func readFile(fsys fs.FS, name string, info fs.FileInfo, started time.Time, budget *int64, limit int64) (*file, error) {
	fh, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	defer fh.Close()
	var content bytes.Buffer
	if size := info.Size(); size > 0 && size <= *budget {
		content.Grow(int(size))
	}
	n, err := io.Copy(&content, io.LimitReader(fh, *budget+1))
	if err != nil {
		return nil, fmt.Errorf("static: reading %s: %w", name, err)
	}
	if n > *budget {
		return nil, fmt.Errorf("%w: %d bytes, reached at %s; raise MaxMemory or serve fewer files", ErrTooLarge, limit, name)
	}
	*budget -= n
	f := &file{name: name, modtime: info.ModTime(), content: content.Bytes()}
	if f.modtime.IsZero() {
		f.modtime = started // an embed.FS has none: Last-Modified is when the server started
	}
	sum := sha256.Sum256(f.content)
	f.etag = []string{`"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = http.DetectContentType(f.content) // reads at most 512 bytes
	}
	f.ctype = []string{ctype}
	return f, nil
}
