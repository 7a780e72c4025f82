package static

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidOption is wrapped by the error of an option the plugin
// cannot use; Register and Ready report it.
var ErrInvalidOption = errors.New("invalid static option")

// ImmutableCache is the Cache-Control of a hashed name: a year, never
// revalidated.
const ImmutableCache = "public, max-age=31536000, immutable"

// DefaultCache is the Cache-Control of every other file: stored, and
// revalidated on each use, which the ETag makes a 304.
const DefaultCache = "no-cache"

// ErrTooLarge is wrapped by the error Ready returns when the files (with
// their precompressed siblings) hold more bytes than MaxMemory allows.
var ErrTooLarge = errors.New("static: the files exceed the memory limit")

// DefaultMaxMemory is the default of MaxMemory: 64 MiB, room for a
// single-page app's build and its precompressed copies.
const DefaultMaxMemory = 64 << 20

// Option configures the plugin.
type Option func(*config)

type config struct {
	prefix     string
	index      string
	fallback   string
	immutable  func(name string) bool
	cache      string
	browse     bool
	dotfiles   bool
	documented bool
	maxMemory  int64
	err        error
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

func newConfig(opts []Option) *config {
	c := &config{prefix: "", index: "index.html", immutable: HashedName, cache: DefaultCache, maxMemory: DefaultMaxMemory}
	for _, o := range opts {
		o(c)
	}
	return c
}

// At serves the files under prefix ("/assets"), in the context's own
// prefix; the default is the context's root.
func At(prefix string) Option {
	return func(c *config) {
		p := strings.TrimSuffix(prefix, "/")
		if !strings.HasPrefix(prefix, "/") || strings.ContainsAny(p, ":*\\") || strings.Contains(p, "//") {
			c.fail("prefix %q must start with / and hold no parameter", prefix)
			return
		}
		c.prefix = p
	}
}

// Index names the file a directory's URL serves (default "index.html");
// "" serves none.
func Index(name string) Option { return func(c *config) { c.index = name } }

// Fallback makes the file name (the app's shell, "index.html") the
// answer to a browser navigation to a path no route has, under the
// plugin's prefix: a GET or HEAD whose Accept names text/html. Every
// other request no route has gets Burrow's 404, and so does a path
// under the first segment of a route of the context's API ("/todos/1/x"
// when "/todos/:id" is a route): the plugin sets the not-found handler
// of the context registering it, which must be the root or have a
// prefix of its own.
func Fallback(name string) Option { return func(c *config) { c.fallback = name } }

// Immutable decides which names are content-hashed, served with
// ImmutableCache; the default is HashedName. name is the file's path in
// the fs.FS.
func Immutable(fn func(name string) bool) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("nil Immutable function")
			return
		}
		c.immutable = fn
	}
}

// CacheControl sets the Cache-Control of the files that are not
// immutable (default DefaultCache, "no-cache").
func CacheControl(value string) Option { return func(c *config) { c.cache = value } }

// Browse lists the files of a directory that has no index file. Off by
// default: a listing shows what was not meant to be linked.
func Browse() Option { return func(c *config) { c.browse = true } }

// Dotfiles serves files and directories whose name begins with "."
// (".well-known" is always served). Off by default: .env, .git and
// their kind stay private even when they end up in the served tree.
func Dotfiles() Option { return func(c *config) { c.dotfiles = true } }

// Documented puts the file routes in the OpenAPI document; by default
// they are left out.
func Documented() Option { return func(c *config) { c.documented = true } }

// MaxMemory bounds the bytes the plugin keeps in memory (default
// DefaultMaxMemory): every file and precompressed sibling is read once
// at start-up and served from memory, so what is served is exactly what
// its ETag describes. A tree holding more makes Ready fail with
// ErrTooLarge; large downloads belong on a file server or object store.
func MaxMemory(bytes int64) Option {
	return func(c *config) {
		if bytes <= 0 {
			c.fail("MaxMemory must be positive, not %d", bytes)
			return
		}
		c.maxMemory = bytes
	}
}
