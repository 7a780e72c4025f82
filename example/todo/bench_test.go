package main

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

// discard is a reusable ResponseWriter, so the benchmark measures the
// server, not a recorder: its body buffer keeps its memory from one
// request to the next.
type discard struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) WriteHeader(s int)           { w.status = s }
func (w *discard) Write(p []byte) (int, error) { return w.body.Write(p) }
func (w *discard) reset()                      { clear(w.h); w.status = 0; w.body.Reset() }

// SetWriteDeadline is what a connection's ResponseWriter offers, so the
// reply's write deadline is armed as it is on a socket.
func (w *discard) SetWriteDeadline(time.Time) error { return nil }

// benchDB is an in-memory database with alice's todo 1.
func benchDB(b *testing.B) *sql.DB {
	db, err := openDB(context.Background(), "")
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkGetTodo is GET /todos/1 through Burrow, in process: routing,
// the edge (security headers, compression), bearer-auth, the :id's
// decoding and validation, the request values (transaction, user,
// todos), the handler, SQLite's query, the commit, and the JSON reply.
// Request logging is off, as in the README's other benchmarks.
func BenchmarkGetTodo(b *testing.B) {
	benchGet(b, "Authorization", alice)
}

// BenchmarkGetTodoSession is BenchmarkGetTodo authenticated by the
// session cookie instead (the session in memory): what the page's
// requests cost.
func BenchmarkGetTodoSession(b *testing.B) {
	benchGet(b, "Cookie", "")
}

// benchGet measures GET /todos/1 with the header name: value (a Cookie
// with an empty value is a session's, made by logging in first).
func benchGet(b *testing.B, name, value string) {
	db := benchDB(b)
	s, err := newServer(context.Background(), db, setup{users: []user{{"alice", "tokenA"}, {"bob", "tokenB"}}}, withoutLogs()...)
	require.NoError(b, err)
	require.NoError(b, s.Ready())
	b.Cleanup(func() { require.NoError(b, s.Close(context.Background())) })

	post := httptest.NewRequest("POST", "/todos", strings.NewReader(`{"title":"Milk"}`))
	post.Header.Set("Authorization", alice)
	post.Header.Set("Content-Type", jsonType)
	w := &discard{h: http.Header{}}
	s.ServeHTTP(w, post)
	require.Equal(b, 201, w.status, w.body.String())
	if name == "Cookie" && value == "" {
		login := httptest.NewRequest("POST", "/session", strings.NewReader(`user=alice&token=tokenA`))
		login.Header.Set("Content-Type", formType)
		w.reset()
		s.ServeHTTP(w, login)
		require.Equal(b, 204, w.status, w.body.String())
		c, err := http.ParseSetCookie(w.h.Get("Set-Cookie"))
		require.NoError(b, err)
		value = c.Name + "=" + c.Value
	}

	// net/http gives a request a context that is cancelled when the
	// client goes; database/sql and the driver watch such a context, so
	// the benchmark's request has one too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "GET", "/todos/1", nil)
	req.Header.Set(name, value)
	w.reset()
	s.ServeHTTP(w, req)
	require.Equal(b, `{"id":1,"title":"Milk","done":false}`, w.body.String())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.reset()
		s.ServeHTTP(w, req)
	}
	b.StopTimer()
	require.Equal(b, `{"id":1,"title":"Milk","done":false}`, w.body.String())
}

// BenchmarkGetTodoStore is what BenchmarkGetTodo asks of SQLite, without
// Burrow: a read-only transaction, the query, the commit. The difference
// between the two is the framework's share.
func BenchmarkGetTodoStore(b *testing.B) {
	db := benchDB(b)
	// A request's context can be cancelled, and database/sql and the
	// driver watch such a context while they work: give them one too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ids, err := addUsers(ctx, db, []string{"alice"})
	require.NoError(b, err)
	_, err = todos{q: db, user: ids[0]}.create(ctx, "Milk", false)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := (todos{q: tx, user: ids[0]}).get(ctx, 1); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// withoutLogs is the options of a server that logs nothing per request.
func withoutLogs() []app.Option {
	return []app.Option{app.WithLogger(zap.NewNop()), app.WithoutRequestLogging()}
}
