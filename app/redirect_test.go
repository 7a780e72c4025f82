package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// TestRedirect: a typed route answering app.Redirect sends its status
// (303 without Status), its Location and no body, over a real socket, to
// every method, HEAD included.
func TestRedirect(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	to := func(loc string) func(context.Context, struct{}) (app.Redirect, error) {
		return func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: loc}, nil }
	}
	require.NoError(t, app.Post(s, "/login", to("/todos?page=2#top")))
	require.NoError(t, app.Get(s, "/found", to("/"), app.Status(http.StatusFound)))
	require.NoError(t, app.Get(s, "/moved", to("/new"), app.Status(http.StatusMovedPermanently)))
	require.NoError(t, app.Put(s, "/temporary", to("/b"), app.Status(http.StatusTemporaryRedirect)))
	require.NoError(t, app.Delete(s, "/permanent", to("/c"), app.Status(http.StatusPermanentRedirect)))
	require.NoError(t, app.Get(s, "/away", func(context.Context, struct{}) (app.Redirect, error) {
		return app.Redirect{Location: "https://id.example.com/authorize?state=x", External: true}, nil
	}))
	require.NoError(t, app.Get(s, "/home", func(context.Context, struct{}) (app.Redirect, error) {
		return app.Redirect{Location: "/", External: true}, nil // a path is still one
	}))
	require.NoError(t, app.Get(s, "/cafe", to("/tags/café?q=ü&r=%C3%BC")))
	base := apptest.Serve(t, s)
	for _, tt := range []struct {
		method, path string
		status       int
		location     string
	}{
		{"POST", "/login", http.StatusSeeOther, "/todos?page=2#top"},
		{"GET", "/found", http.StatusFound, "/"},
		{"HEAD", "/found", http.StatusFound, "/"},
		{"GET", "/moved", http.StatusMovedPermanently, "/new"},
		{"PUT", "/temporary", http.StatusTemporaryRedirect, "/b"},
		{"DELETE", "/permanent", http.StatusPermanentRedirect, "/c"},
		{"GET", "/away", http.StatusSeeOther, "https://id.example.com/authorize?state=x"},
		{"GET", "/home", http.StatusSeeOther, "/"},
		{"GET", "/cafe", http.StatusSeeOther, "/tags/caf%C3%A9?q=%C3%BC&r=%C3%BC"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			res := apptest.Fetch(t, tt.method, base+tt.path)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.location, res.Header.Get("Location"))
			assert.Empty(t, res.Body)
			assert.Empty(t, res.Header.Get("Content-Type"))
		})
	}
}

// TestRedirectFromAnyHandler: a handler of another form that returns a
// Redirect answers it too, with 303.
func TestRedirectFromAnyHandler(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Get("/plain", func() (app.Redirect, error) { return app.Redirect{Location: "/there"}, nil }))
	res := apptest.Get(t, s, "/plain")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/there", res.Header.Get("Location"))
}

// TestRedirectRefusesLocations: a Location that could inject a header,
// leave the site without External, or not resolve as written fails the
// reply: a 500 with no Location, and an error line that wraps
// ErrInvalidRedirect and says why.
func TestRedirectRefusesLocations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		r        app.Redirect
		contains string
	}{
		{"empty", app.Redirect{}, "the redirect has no location"},
		{"CR LF", app.Redirect{Location: "/a\r\nSet-Cookie: x=1"}, "holds a control character"},
		{"LF alone", app.Redirect{Location: "/a\nb"}, "holds a control character"},
		{"a tab a browser drops", app.Redirect{Location: "/\t/evil.example"}, "holds a control character"},
		{"NUL", app.Redirect{Location: "/a\x00"}, "holds a control character"},
		{"DEL", app.Redirect{Location: "/a\x7f"}, "holds a control character"},
		{"another site", app.Redirect{Location: "https://evil.example/"}, "is not a path of this site"},
		{"scheme-relative", app.Redirect{Location: "//evil.example/x"}, "is not a path of this site"},
		{"a backslash a browser reads as a slash", app.Redirect{Location: `/\evil.example`}, "is not a path of this site"},
		{"a relative path", app.Redirect{Location: "edit"}, "is not a path of this site"},
		{"a parent path", app.Redirect{Location: "../list"}, "is not a path of this site"},
		{"javascript", app.Redirect{Location: "javascript:alert(1)"}, "is not a path of this site"},
		{"javascript with External", app.Redirect{Location: "javascript:alert(1)", External: true}, "neither a path of this site nor an absolute http or https URL"},
		{"scheme-relative with External", app.Redirect{Location: "//evil.example/x", External: true}, "neither a path"},
		{"no host with External", app.Redirect{Location: "https:///x", External: true}, "neither a path"},
		{"a backslash a browser reads as a slash, with External", app.Redirect{Location: `https://evil.example\@good.example/`, External: true}, "is not a URL"},
		{"a relative path with External", app.Redirect{Location: "edit", External: true}, "neither a path"},
		{"not a URL", app.Redirect{Location: "/a%zz"}, "is not a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.ErrorLevel)
			s := apptest.New(t, app.WithLogger(zap.New(core)))
			require.NoError(t, app.Get(s, "/", func(context.Context, struct{}) (app.Redirect, error) { return tt.r, nil }))
			res := apptest.Get(t, s, "/")
			assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
			assert.Empty(t, res.Header.Values("Location"))
			assert.NotContains(t, res.Body, "evil")
			assert.Empty(t, res.Header.Values("Set-Cookie"))
			entries := logs.All()
			require.Len(t, entries, 1)
			err, ok := entries[0].ContextMap()["error"].(string)
			require.True(t, ok, "the line carries the error: %v", entries[0].ContextMap())
			assert.Contains(t, err, tt.contains)
		})
	}
	// The error itself, as an error handler gets it.
	s := apptest.New(t)
	var got error
	require.NoError(t, s.SetErrorHandler(func(err error) error { got = err; return err }))
	require.NoError(t, app.Get(s, "/", func(context.Context, struct{}) (app.Redirect, error) {
		return app.Redirect{Location: "//evil.example"}, nil
	}))
	assert.Equal(t, http.StatusInternalServerError, apptest.Get(t, s, "/").StatusCode)
	assert.ErrorIs(t, got, app.ErrInvalidRedirect)
	assert.EqualError(t, got, `the redirect location "//evil.example" is not a path of this site (one that begins with a single /): set External to send the client to an absolute URL`)
}

// TestRedirectStatusAtReady: a Redirect takes a redirect status only, and
// a redirect status needs a Redirect; either mistake fails Ready.
func TestRedirectStatusAtReady(t *testing.T) {
	t.Parallel()
	redirect := func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: "/"}, nil }
	text := func(context.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name     string
		register func(s *app.Server) error
		want     string
	}{
		{"a success status on a Redirect", func(s *app.Server) error {
			return app.Get(s, "/", redirect, app.Status(http.StatusAccepted))
		}, "route GET / (root) has an invalid handler: answers an app.Redirect, so its Status must be a redirect status (301, 302, 303, 307 or 308), not 202"},
		{"a redirect status on a body", func(s *app.Server) error {
			return app.Get(s, "/", text, app.Status(http.StatusFound))
		}, "route GET / (root) has an invalid handler: has the redirect status 302, which only a route answering app.Redirect takes"},
		{"304, which is no redirect", func(s *app.Server) error {
			return app.Get(s, "/", redirect, app.Status(http.StatusNotModified))
		}, "route GET / (root) has an invalid status 304: Status takes a success status with a body, 200 to 299 but 204, or a Redirect's status, 301, 302, 303, 307 or 308"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			_ = tt.register(s)
			err := s.Ready()
			require.ErrorIs(t, err, app.ErrInvalidHandler)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestRedirectDescribed: a Redirect route's description lists its
// redirect status with the Location header, and no 200.
func TestRedirectDescribed(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Post(s, "/login", func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: "/"}, nil }))
	require.NoError(t, app.Get(s, "/old", func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: "/"}, nil },
		app.Status(http.StatusPermanentRedirect)))
	require.NoError(t, s.Ready())
	got := map[string][]app.ResponseInfo{}
	for _, ri := range s.Routes() {
		if !strings.HasPrefix(ri.Method, "HEAD") {
			got[ri.Method+" "+ri.Path] = ri.Responses
		}
	}
	assert.Equal(t, []app.ResponseInfo{{Status: http.StatusSeeOther, Headers: []string{"Location"}}}, got["POST /login"])
	assert.Equal(t, []app.ResponseInfo{{Status: http.StatusPermanentRedirect, Headers: []string{"Location"}}}, got["GET /old"])
}
