package compress_test

import (
	stdgzip "compress/gzip"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzhttp"

	"github.com/burrow-go/burrow/plugins/compress"
)

// Allocation benchmarks (run with -benchmem -benchtime=2000x): the
// plugin's middleware against compress/gzip used the plain way (a writer
// per answer) and the careful way (writers pooled), each compressing the
// same 4 KiB JSON answer into a writer that keeps nothing.

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

func jsonHandler() http.Handler {
	body, _ := json.Marshal(items())
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = []string{"application/json"}
		_, _ = w.Write(body)
	})
}

func run(b *testing.B, h http.Handler, accept string) {
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Encoding", accept)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

func BenchmarkPluginGzip(b *testing.B) {
	mw, _ := compress.Middleware()
	run(b, mw(jsonHandler()), "gzip")
}

func BenchmarkPluginZstd(b *testing.B) {
	mw, _ := compress.Middleware()
	run(b, mw(jsonHandler()), "zstd")
}

func BenchmarkPluginBrotli(b *testing.B) {
	mw, _ := compress.Middleware()
	run(b, mw(jsonHandler()), "br")
}

func BenchmarkPluginIdentity(b *testing.B) {
	mw, _ := compress.Middleware()
	run(b, mw(jsonHandler()), "identity")
}

type stdWriter struct {
	http.ResponseWriter
	gz *stdgzip.Writer
}

func (w stdWriter) Write(p []byte) (int, error) { return w.gz.Write(p) }

// BenchmarkStdlibGzip is the middleware most code has: a new gzip
// writer per answer.
func BenchmarkStdlibGzip(b *testing.B) {
	next := jsonHandler()
	run(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		gz := stdgzip.NewWriter(w)
		next.ServeHTTP(stdWriter{w, gz}, r)
		_ = gz.Close()
	}), "gzip")
}

// BenchmarkStdlibGzipPooled reuses the gzip writers.
func BenchmarkStdlibGzipPooled(b *testing.B) {
	next := jsonHandler()
	pool := sync.Pool{New: func() any { return stdgzip.NewWriter(nil) }}
	run(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		gz := pool.Get().(*stdgzip.Writer)
		gz.Reset(w)
		next.ServeHTTP(stdWriter{w, gz}, r)
		_ = gz.Close()
		pool.Put(gz)
	}), "gzip")
}

// BenchmarkGzhttp is klauspost/compress's own middleware, for reference.
func BenchmarkGzhttp(b *testing.B) {
	run(b, gzhttp.GzipHandler(jsonHandler()), "gzip")
}
