package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

// The framework's share of a real request: GET /api/articles?limit=20 on
// a seeded SQLite database, through Conduit on Burrow and through a plain
// net/http handler written for the comparison, which runs the same
// queries (list, count, tags) in a transaction and encodes the same
// JSON. What differs is routing, input, the request's transaction as a
// request value, and the reply.

// seed fills d with users, articles with tags and favorites.
func seed(tb testing.TB, d *db) {
	tb.Helper()
	ctx := context.Background()
	tx, err := d.BeginTx(ctx, nil)
	require.NoError(tb, err)
	for u := 1; u <= 20; u++ {
		_, err := tx.ExecContext(ctx, d.q(`INSERT INTO users (username, email, password_hash) VALUES (?, ?, 'x')`),
			fmt.Sprintf("user%d", u), fmt.Sprintf("user%d@example.com", u))
		require.NoError(tb, err)
	}
	now := time.Now().UnixMilli()
	for a := 1; a <= 200; a++ {
		_, err := tx.ExecContext(ctx, d.q(`INSERT INTO articles (slug, title, description, body, author_id, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`), fmt.Sprintf("article-%d", a), fmt.Sprintf("Article %d", a),
			"A description of some length, as articles have.", strings.Repeat("Body text. ", 50), a%20+1, now+int64(a), now+int64(a))
		require.NoError(tb, err)
		for _, tag := range []string{"go", "http", fmt.Sprintf("t%d", a%7)} {
			_, err := tx.ExecContext(ctx, d.q(`INSERT INTO article_tags (article_id, tag) VALUES (?, ?)`), a, tag)
			require.NoError(tb, err)
		}
		_, err = tx.ExecContext(ctx, d.q(`INSERT INTO favorites (user_id, article_id) VALUES (?, ?)`), a%20+1, a)
		require.NoError(tb, err)
	}
	require.NoError(tb, tx.Commit())
}

// plainArticles is the route written with net/http and database/sql
// alone: the same queries, the same JSON.
func plainArticles(d *db) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/articles", func(w http.ResponseWriter, r *http.Request) {
		limit, offset := 20, 0
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				http.Error(w, `{"errors":{"limit":["is invalid"]}}`, http.StatusUnprocessableEntity)
				return
			}
			limit = n
		}
		if v := r.URL.Query().Get("offset"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				http.Error(w, `{"errors":{"offset":["is invalid"]}}`, http.StatusUnprocessableEntity)
				return
			}
			offset = n
		}
		sqlTx, err := d.BeginTx(r.Context(), nil)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer sqlTx.Rollback()
		res, err := list(r.Context(), tx{Tx: sqlTx, d: d}, 0, "", nil, limit, offset)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if err := sqlTx.Commit(); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		b, err := json.Marshal(res)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(b)
	})
	return mux
}

func articlesRoutes(tb testing.TB) (burrow, plain http.Handler) {
	d, err := openDB(context.Background(), "")
	require.NoError(tb, err)
	tb.Cleanup(func() { d.Close() })
	seed(tb, d)
	s := build(d, newTokens([]byte(strings.Repeat("k", 32))), nil, app.WithLogger(zap.NewNop()))
	require.NoError(tb, s.Ready())
	return s, plainArticles(d)
}

// TestArticlesAnswerAlike guards the comparison: both answer the same
// bytes.
func TestArticlesAnswerAlike(t *testing.T) {
	t.Parallel()
	burrow, plain := articlesRoutes(t)
	var got [2]string
	for i, h := range []http.Handler{burrow, plain} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/api/articles?limit=20", nil))
		require.Equal(t, 200, w.Code)
		got[i] = strings.TrimSpace(w.Body.String())
	}
	require.Equal(t, got[0], got[1])
	var r articlesReply
	require.NoError(t, json.Unmarshal([]byte(got[0]), &r))
	require.Len(t, r.Articles, 20)
	require.Equal(t, 200, r.ArticlesCount)
}

// BenchmarkArticles is GET /api/articles?limit=20 on Burrow and on plain
// net/http.
func BenchmarkArticles(b *testing.B) {
	burrow, plain := articlesRoutes(b)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"burrow", burrow}, {"nethttp", plain}} {
		b.Run(c.name, func(b *testing.B) {
			// A request context that can end, as a server's always can:
			// database/sql watches such a context for each transaction.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := httptest.NewRequestWithContext(ctx, "GET", "/api/articles?limit=20", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
