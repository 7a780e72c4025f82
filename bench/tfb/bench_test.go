package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmarks serve each route in process, through Burrow and through
// a net/http ServeMux written the way the benchmark's nethttp peer is
// (a middleware for Server, json.Marshal, html/template into the
// ResponseWriter), both on the same database service. What they count is
// the framework's part of a request beside the database's, not net/http's
// connection handling, which is the same for both:
//
//	go test -run '^$' -bench . -benchmem -benchtime 2000x
//
// Allocation counts are exact; timings here are not figures to quote
// (the database dominates the last four routes, and the machine is
// shared).

// benchRoutes are the targets, as the load generator asks for them.
var benchRoutes = []string{"/json", "/plaintext", "/db", "/queries?queries=20", "/fortunes", "/updates?queries=20"}

func BenchmarkTFB(b *testing.B) {
	file := databaseFile(b)
	s := newServer(file)
	if err := s.Ready(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(b.Context()) })
	db, err := openDatabase(file)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	std := netHTTPServer(db)
	for _, target := range benchRoutes {
		name, _, _ := strings.Cut(target[1:], "?")
		b.Run(name+"/burrow", func(b *testing.B) { benchServe(b, s, target) })
		b.Run(name+"/nethttp", func(b *testing.B) { benchServe(b, std, target) })
	}
}

// benchServe serves target with h, b.N times, into a reused writer.
func benchServe(b *testing.B, h http.Handler, target string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != http.StatusOK && w.status != 0 || w.n == 0 || w.h.Get("Server") == "" {
		b.Fatalf("GET %s: status %d, %d bytes, header %v", target, w.status, w.n, w.h)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// discard is a ResponseWriter kept from one request to the next, so that
// the benchmarks count the handler's work, not a recorder's. It has the
// write and read deadlines of a connection's writer, as net/http's has,
// so Burrow pays for arming its reply time-out.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (w *discard) Header() http.Header              { return w.h }
func (w *discard) WriteHeader(status int)           { w.status = status }
func (w *discard) Write(p []byte) (int, error)      { w.n += len(p); return len(p), nil }
func (w *discard) SetWriteDeadline(time.Time) error { return nil }
func (w *discard) SetReadDeadline(time.Time) error  { return nil }
func (w *discard) reset()                           { clear(w.h); w.status, w.n = 0, 0 }

// netHTTPServer is the same server on the standard library alone.
func netHTTPServer(db *database) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, &message{Message: "Hello, World!"})
	})
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	mux.HandleFunc("GET /db", func(w http.ResponseWriter, _ *http.Request) {
		var row world
		if err := db.readWorld(&row); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, &row)
	})
	mux.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.randomWorlds(queriesOf(r))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, rows)
	})
	mux.HandleFunc("GET /updates", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.updateWorlds(queriesOf(r))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, rows)
	})
	mux.HandleFunc("GET /fortunes", func(w http.ResponseWriter, _ *http.Request) {
		list, err := db.fortunes()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fortunesTemplate.Execute(w, list)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nethttp")
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func queriesOf(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("queries"))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxQueries)
}
