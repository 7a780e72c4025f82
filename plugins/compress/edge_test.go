package compress_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/compress"
	"github.com/burrow-go/burrow/plugins/secure"
	"github.com/burrow-go/burrow/plugins/static"
)

// The three edge plugins on one server, as an application with a UI
// and an API registers them: security headers on everything, compression
// that leaves precompressed files alone, the SPA shell and the JSON 404s.
func TestTheEdgePluginsTogether(t *testing.T) {
	t.Parallel()
	shell := "<!doctype html><title>app</title>" + strings.Repeat("<!-- padding -->", 100)
	script := strings.Repeat("console.log('hello');\n", 100)
	dist := fstest.MapFS{
		"index.html":                {Data: []byte(shell)},
		"assets/app-5XKEG3TS.js":    {Data: []byte(script)},
		"assets/app-5XKEG3TS.js.br": {Data: []byte("precompressed brotli")},
	}
	s := apptest.New(t)
	require.NoError(t, s.Register(secure.Plugin()))
	require.NoError(t, s.Register(compress.Plugin()))
	require.NoError(t, s.Register(static.Plugin(dist, static.Fallback("index.html"))))
	s.Register(func(s *app.Server) error {
		s.Register(secure.Plugin(secure.API()))
		s.Get("/todos", func() ([]item, error) { return items(), nil })
		return s.Get("/todos/:id", func() (item, error) { return item{}, httpx.NewError(404, "NO_TODO", "no such todo") })
	})
	url := apptest.Serve(t, s)

	check := func(t *testing.T, res *apptest.Response, csp string) {
		t.Helper()
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
		assert.Equal(t, "same-origin", res.Header.Get("Cross-Origin-Opener-Policy"))
		assert.Equal(t, "same-origin", res.Header.Get("Cross-Origin-Resource-Policy"))
		assert.Equal(t, csp, strings.SplitN(res.Header.Get("Content-Security-Policy"), ";", 2)[0])
	}
	html := "text/html,*/*;q=0.8"

	res := apptest.Fetch(t, "GET", url+"/", "Accept", html, "Accept-Encoding", "gzip")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"), "the shell, compressed on the fly")
	assert.Equal(t, shell, decode(t, "gzip", res.Body))
	assert.True(t, strings.HasPrefix(res.Header.Get("ETag"), `W/"`))
	check(t, res, "default-src 'self'")
	again := apptest.Fetch(t, "GET", url+"/", "Accept-Encoding", "gzip", "If-None-Match", res.Header.Get("ETag"))
	assert.Equal(t, 304, again.StatusCode, "the weak tag still matches")
	check(t, again, "default-src 'self'")

	res = apptest.Fetch(t, "GET", url+"/assets/app-5XKEG3TS.js", "Accept-Encoding", "br, gzip")
	assert.Equal(t, "br", res.Header.Get("Content-Encoding"))
	assert.Equal(t, "precompressed brotli", res.Body, "not compressed twice")
	assert.Equal(t, []string{"Accept-Encoding"}, res.Header.Values("Vary"))
	assert.Equal(t, static.ImmutableCache, res.Header.Get("Cache-Control"))
	res = apptest.Fetch(t, "GET", url+"/assets/app-5XKEG3TS.js", "Accept-Encoding", "gzip")
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	assert.Equal(t, script, decode(t, "gzip", res.Body))
	assert.Equal(t, []string{"Accept-Encoding"}, res.Header.Values("Vary"))

	res = apptest.Fetch(t, "GET", url+"/settings", "Accept", html)
	assert.Equal(t, shell, res.Body, "the fallback")
	check(t, res, "default-src 'self'")

	res = apptest.Fetch(t, "GET", url+"/todos", "Accept-Encoding", "zstd")
	assert.Equal(t, "zstd", res.Header.Get("Content-Encoding"))
	check(t, res, "default-src 'none'")
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/todos/1", 404}, {"GET", "/todos/1/x", 404}, {"DELETE", "/todos", 405},
	} {
		res = apptest.Fetch(t, c.method, url+c.path, "Accept", html, "Accept-Encoding", "gzip")
		assert.Equal(t, c.status, res.StatusCode, c.path)
		assert.Contains(t, res.Header.Get("Content-Type"), "application/json", c.path)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), c.path)
	}
	res = apptest.Fetch(t, "GET", url+"/nowhere", "Accept", "application/json")
	assert.Equal(t, 404, res.StatusCode)
	check(t, res, "default-src 'self'")
}
