package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/plugins/session"
)

// benchRecorder is a ResponseWriter that keeps nothing.
type benchRecorder struct{ h http.Header }

func (w *benchRecorder) Header() http.Header         { return w.h }
func (w *benchRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchRecorder) WriteHeader(int)             {}

// BenchmarkAuthenticatedGet is a GET that reads who the caller is: from a
// session in the memory store (its cookie, a lookup, the JSON record
// decoded), and, beside it, from a bearer token.
func BenchmarkAuthenticatedGet(b *testing.B) {
	b.Run("session", func(b *testing.B) {
		s := app.New(app.WithoutRequestLogging())
		s.Register(func(s *app.Server) error {
			s.Register(session.Plugin[user](session.NewMemoryStore(), session.Cookie("sid")))
			app.Post(s, "/login", func(_ context.Context, in loginIn) (app.NoContent, error) {
				in.Session.Set(user{Name: "alice"})
				return app.NoContent{}, nil
			})
			return app.Get(s, "/me", func(_ context.Context, in sessIn) (user, error) { u, _ := in.Session.Get(); return u, nil })
		})
		require.NoError(b, s.Ready())
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", "/login", nil))
		cookie := w.Result().Cookies()[0]
		req := httptest.NewRequest("GET", "/me", nil)
		req.AddCookie(cookie)
		run(b, s, req)
	})
	b.Run("bearer", func(b *testing.B) {
		s := app.New(app.WithoutRequestLogging())
		s.Register(func(s *app.Server) error {
			s.Register(bearer.Plugin(bearer.Keys("token-of-alice")))
			return app.Get(s, "/me", func(context.Context, struct{}) (user, error) { return user{Name: "alice"}, nil })
		})
		require.NoError(b, s.Ready())
		req := httptest.NewRequest("GET", "/me", nil)
		req.Header.Set("Authorization", "Bearer token-of-alice")
		run(b, s, req)
	})
}

func run(b *testing.B, h http.Handler, req *http.Request) {
	w := &benchRecorder{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}
