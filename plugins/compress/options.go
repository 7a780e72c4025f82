package compress

import (
	"errors"
	"fmt"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Coding names, as Accept-Encoding and Content-Encoding spell them.
const (
	Zstd   = "zstd"
	Brotli = "br"
	Gzip   = "gzip"
)

// DefaultMinSize is the size below which an answer is sent as it is:
// compressing it would save less than it costs.
const DefaultMinSize = 1024

// DefaultTypes are the media types compressed by default: text, JSON,
// XML, JavaScript, WebAssembly, SVG and uncompressed font formats. A
// pattern's subtype may be "*" (any) or "*+suffix".
var DefaultTypes = []string{
	"text/*",
	"application/json", "application/*+json", "application/x-ndjson",
	"application/javascript", "application/ecmascript", "application/x-javascript",
	"application/xml", "application/*+xml",
	"application/wasm", "application/graphql-response+json",
	"image/svg+xml", "image/x-icon", "image/vnd.microsoft.icon", "image/bmp",
	"font/ttf", "font/otf", "application/vnd.ms-fontobject",
}

// ErrInvalidOption is wrapped by the error of an option the plugin
// cannot use; Register and Ready report it.
var ErrInvalidOption = errors.New("invalid compression option")

// Option configures the plugin.
type Option func(*config)

type config struct {
	minSize int
	types   []mediaType
	codings []string // preferred first
	gzip    int
	brotli  int
	zstd    zstd.EncoderLevel
	err     error
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

func newConfig(opts []Option) *config {
	c := &config{
		minSize: DefaultMinSize,
		codings: []string{Zstd, Brotli, Gzip},
		gzip:    gzip.DefaultCompression,
		brotli:  4, // brotli's default (11) is for files compressed once
		zstd:    zstd.SpeedDefault,
	}
	Types(DefaultTypes...)(c)
	for _, o := range opts {
		o(c)
	}
	return c
}

// MinSize sets the size below which an answer is not compressed
// (default DefaultMinSize); 0 compresses every answer with a body.
func MinSize(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.fail("negative minimum size %d", n)
			return
		}
		c.minSize = n
	}
}

// Types replaces the allow-list of media types (DefaultTypes) by
// patterns: "type/subtype", "type/*" or "type/*+suffix".
func Types(patterns ...string) Option {
	return func(c *config) {
		c.types = c.types[:0:0]
		for _, p := range patterns {
			m, ok := parseMediaType(p)
			if !ok {
				c.fail("media type pattern %q is not type/subtype", p)
				return
			}
			c.types = append(c.types, m)
		}
	}
}

// Encodings sets the codings offered, the server's preferred first
// (default zstd, br, gzip): among codings a client accepts with the same
// q-value, the first here wins.
func Encodings(codings ...string) Option {
	return func(c *config) {
		c.codings = nil
		for _, name := range codings {
			name = strings.ToLower(name)
			switch name {
			case Zstd, Brotli, Gzip:
				c.codings = append(c.codings, name)
			default:
				c.fail("unknown coding %q (zstd, br and gzip are offered)", name)
				return
			}
		}
		if len(c.codings) == 0 {
			c.fail("no coding offered")
		}
	}
}

// GzipLevel sets gzip's level, from gzip.BestSpeed (1) to
// gzip.BestCompression (9), or gzip.DefaultCompression (-1, the default).
func GzipLevel(level int) Option {
	return func(c *config) {
		if level < gzip.HuffmanOnly || level > gzip.BestCompression {
			c.fail("gzip level %d is not from -2 to 9", level)
			return
		}
		c.gzip = level
	}
}

// BrotliLevel sets brotli's quality, from 0 to 11 (default 4: brotli's
// own default, 11, is for files compressed once, not per answer).
func BrotliLevel(level int) Option {
	return func(c *config) {
		if level < brotli.BestSpeed || level > brotli.BestCompression {
			c.fail("brotli level %d is not from 0 to 11", level)
			return
		}
		c.brotli = level
	}
}

// ZstdLevel sets zstd's level (default zstd.SpeedDefault).
func ZstdLevel(level zstd.EncoderLevel) Option {
	return func(c *config) {
		if level < zstd.SpeedFastest || level > zstd.SpeedBestCompression {
			c.fail("zstd level %d is not a zstd.EncoderLevel", level)
			return
		}
		c.zstd = level
	}
}

// mediaType is an allow-list pattern: sub "*" matches any subtype, a
// suffix ("+json") any subtype ending with it.
type mediaType struct{ typ, sub, suffix string }

func parseMediaType(p string) (mediaType, bool) {
	typ, sub, ok := strings.Cut(strings.ToLower(strings.TrimSpace(p)), "/")
	if !ok || typ == "" || sub == "" || strings.ContainsAny(typ+sub, " ;,") {
		return mediaType{}, false
	}
	if strings.HasPrefix(sub, "*+") {
		return mediaType{typ: typ, suffix: sub[1:]}, true
	}
	return mediaType{typ: typ, sub: sub}, true
}

// allowed reports whether the Content-Type ct is on the list.
func (c *config) allowed(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	typ, sub, ok := strings.Cut(strings.TrimSpace(ct), "/")
	if !ok {
		return false
	}
	for _, m := range c.types {
		if !strings.EqualFold(typ, m.typ) {
			continue
		}
		switch {
		case m.suffix != "":
			if len(sub) > len(m.suffix) && strings.EqualFold(sub[len(sub)-len(m.suffix):], m.suffix) {
				return true
			}
		case m.sub == "*" || strings.EqualFold(sub, m.sub):
			return true
		}
	}
	return false
}
