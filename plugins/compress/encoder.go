package compress

import (
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// encoder is what gzip.Writer, brotli.Writer and zstd.Encoder have in
// common: each is reset onto the next answer's writer rather than made
// anew, since making one costs far more than an answer (a zstd encoder's
// tables, brotli's hash chains).
type encoder interface {
	io.Writer
	Flush() error
	Close() error
	Reset(io.Writer)
}

// coding is one offered coding: its name and its pool of encoders.
type coding struct {
	name  string
	value []string // the Content-Encoding value, shared by every answer
	pool  sync.Pool
}

func newCoding(name string, c *config) *coding {
	cd := &coding{name: name, value: []string{name}}
	switch name {
	case Gzip:
		level := c.gzip
		cd.pool.New = func() any {
			w, _ := gzip.NewWriterLevel(nil, level) // the level was checked
			return w
		}
	case Brotli:
		level := c.brotli
		cd.pool.New = func() any { return brotli.NewWriterLevel(nil, level) }
	case Zstd:
		level := c.zstd
		cd.pool.New = func() any {
			// One goroutine per encoder (an answer is written by one),
			// and a window RFC 9659's 8 MiB bound leaves room for.
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
				zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true)) // the options are valid
			return e
		}
	}
	return cd
}

func (cd *coding) get(w io.Writer) encoder {
	e := cd.pool.Get().(encoder)
	e.Reset(w)
	return e
}

// put returns e, closed, to the pool, holding no writer.
func (cd *coding) put(e encoder) {
	e.Reset(io.Discard)
	cd.pool.Put(e)
}
