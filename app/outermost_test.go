package app_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// mark is a middleware that marks every answer with X-Mark: name.
func mark(name string) app.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Mark", name)
			next.ServeHTTP(w, r)
		})
	}
}

// deny refuses the requests that carry X-Deny.
func deny(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Deny") != "" {
			app.WriteError(w, r, httpx.NewError(http.StatusForbidden, "", "denied"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestOutermostMiddlewareWrapsTheAncestorsToo(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Use(deny))
	require.NoError(t, s.Use(mark("root-outer"), app.Outermost()))
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Use(mark("child"))
		s.Use(mark("child-outer"), app.Outermost())
		return s.Get("/child", func() (string, error) { return "child", nil })
	}, app.Name("child")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return s.Get("/sibling", func() (string, error) { return "sibling", nil })
	}, app.Name("sibling")))
	require.NoError(t, s.Ready())

	tests := []struct {
		path   string
		deny   bool
		status int
		marks  []string
	}{
		{"/child", false, http.StatusOK, []string{"root-outer", "child-outer", "child"}},
		{"/child", true, http.StatusForbidden, []string{"root-outer", "child-outer"}},
		{"/sibling", true, http.StatusForbidden, []string{"root-outer"}},
	}
	for _, tt := range tests {
		var h []string
		if tt.deny {
			h = []string{"X-Deny", "1"}
		}
		r := apptest.Get(t, s, tt.path, h...)
		assert.Equal(t, tt.status, r.StatusCode, tt.path)
		assert.Equal(t, tt.marks, r.Header.Values("X-Mark"), "%s, denied: %v", tt.path, tt.deny)
	}
}

func TestVaryIsAddedAsTheHeaderIsWritten(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			app.Vary(r, "Origin")
			app.Vary(r, "origin") // once
			app.Vary(r, "Accept-Language")
			next.ServeHTTP(w, r)
		})
	}))
	vary := func(v string) func(rep *httpx.Reply) error {
		return func(rep *httpx.Reply) error {
			if v != "" {
				rep.Header().Set("Vary", v)
			}
			return rep.Send("ok")
		}
	}
	s.Get("/none", vary(""))
	s.Get("/set", vary("Accept-Encoding"))
	s.Get("/listed", vary("origin, accept-language"))
	s.Get("/star", vary("*"))
	s.Get("/refused", func() error { return httpx.NewError(http.StatusTeapot, "", "no") })
	require.NoError(t, s.Ready())
	tests := []struct{ path, vary string }{
		{"/none", "Origin, Accept-Language"},
		{"/set", "Accept-Encoding, Origin, Accept-Language"},
		{"/listed", "origin, accept-language"},
		{"/star", "*"},
		{"/refused", "Origin, Accept-Language"},
	}
	for _, tt := range tests {
		r := apptest.Get(t, s, tt.path)
		assert.Equal(t, tt.vary, strings.Join(r.Header.Values("Vary"), ", "), tt.path)
	}
}
