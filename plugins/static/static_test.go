package static_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/static"
)

func TestMain(m *testing.M) { apptest.Main(m) }

//go:embed all:testdata/site
var embedded embed.FS

func site(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(embedded, "testdata/site")
	require.NoError(t, err)
	return sub
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(site(t), name)
	require.NoError(t, err)
	return string(b)
}

const app1 = "/assets/app-3f2a1b9c.js"

// serve serves the embedded site at the root, with the SPA fallback, and
// a todo-like API beside it.
func serve(t *testing.T, opts ...static.Option) string {
	t.Helper()
	s := apptest.New(t)
	require.NoError(t, s.Register(static.Plugin(site(t), append([]static.Option{static.Fallback("index.html")}, opts...)...)))
	s.Register(func(s *app.Server) error {
		s.Get("/todos", func() ([]string, error) { return []string{}, nil })
		return s.Get("/todos/:id", func() (string, error) { return "", httpx.NewError(404, "NO_TODO", "no such todo") })
	})
	s.Register(func(s *app.Server) error {
		s.SetNotFoundHandler(func(rep *httpx.Reply) error {
			return rep.Code(404).Send(map[string]string{"api": "not here"})
		})
		return s.Get("/items", func() ([]string, error) { return []string{}, nil })
	}, app.Prefix("/api"))
	return apptest.Serve(t, s)
}

func TestFilesAreServedWithTheirHeaders(t *testing.T) {
	t.Parallel()
	url := serve(t)
	for _, c := range []struct {
		path, file, ctype, cache string
	}{
		{"/", "index.html", "text/html; charset=utf-8", "no-cache"},
		{"/index.html", "index.html", "text/html; charset=utf-8", "no-cache"},
		{app1, app1[1:], "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"/style.css", "style.css", "text/css; charset=utf-8", "no-cache"},
		{"/docs/", "docs/index.html", "text/html; charset=utf-8", "no-cache"},
	} {
		t.Run(c.path, func(t *testing.T) {
			res := apptest.Fetch(t, "GET", url+c.path)
			assert.Equal(t, 200, res.StatusCode)
			assert.Equal(t, read(t, c.file), res.Body)
			assert.Equal(t, c.ctype, res.Header.Get("Content-Type"))
			assert.Equal(t, c.cache, res.Header.Get("Cache-Control"))
			assert.Regexp(t, `^"[A-Za-z0-9_-]{24}"$`, res.Header.Get("ETag"))
			assert.NotEmpty(t, res.Header.Get("Last-Modified"))
			head := apptest.Fetch(t, "HEAD", url+c.path)
			assert.Equal(t, 200, head.StatusCode)
			assert.Empty(t, head.Body)
			assert.Equal(t, res.Header.Get("ETag"), head.Header.Get("ETag"))
			assert.Equal(t, res.Header.Get("Content-Length"), head.Header.Get("Content-Length"))
		})
	}
	res := apptest.Fetch(t, "GET", url+"/docs", "Accept", "application/json")
	assert.Equal(t, 404, res.StatusCode, "a directory's index is at its URL with the slash")
}

// Ported from @fastify/static: ETags and dates answer conditional
// requests with 304; a changed one gets the file.
func TestConditionalRequests(t *testing.T) {
	t.Parallel()
	url := serve(t)
	first := apptest.Fetch(t, "GET", url+app1)
	etag, modified := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	for _, c := range []struct {
		name   string
		header []string
		status int
	}{
		{"same etag", []string{"If-None-Match", etag}, 304},
		{"weak etag", []string{"If-None-Match", "W/" + etag}, 304},
		{"among others", []string{"If-None-Match", `"other", ` + etag}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"other etag", []string{"If-None-Match", `"other"`}, 200},
		{"not modified since", []string{"If-Modified-Since", modified}, 304},
		{"modified since", []string{"If-Modified-Since", time.Unix(0, 0).UTC().Format(http.TimeFormat)}, 200},
		{"etag wins over date", []string{"If-None-Match", `"other"`, "If-Modified-Since", modified}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := apptest.Fetch(t, "GET", url+app1, c.header...)
			assert.Equal(t, c.status, res.StatusCode)
			if c.status == 304 {
				assert.Empty(t, res.Body)
				assert.Equal(t, etag, res.Header.Get("ETag"))
			} else {
				assert.Equal(t, first.Body, res.Body)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	t.Parallel()
	url := serve(t)
	full := read(t, app1[1:])
	res := apptest.Fetch(t, "GET", url+app1, "Range", "bytes=10-19", "Accept-Encoding", "gzip")
	assert.Equal(t, 206, res.StatusCode)
	assert.Equal(t, full[10:20], res.Body)
	assert.Empty(t, res.Header.Get("Content-Encoding"), "ranges of the identity bytes")
	res = apptest.Fetch(t, "GET", url+app1, "Range", "bytes=99999-")
	assert.Equal(t, 416, res.StatusCode)
	etag := apptest.Fetch(t, "GET", url+app1).Header.Get("ETag")
	res = apptest.Fetch(t, "GET", url+app1, "Range", "bytes=0-4", "If-Range", etag)
	assert.Equal(t, 206, res.StatusCode)
	res = apptest.Fetch(t, "GET", url+app1, "Range", "bytes=0-4", "If-Range", `"old"`)
	assert.Equal(t, 200, res.StatusCode)
}

// A precompressed sibling answers when Accept-Encoding prefers it; the
// answer varies with Accept-Encoding whichever is chosen.
func TestPrecompressedSiblings(t *testing.T) {
	t.Parallel()
	url := serve(t)
	identity := apptest.Fetch(t, "GET", url+app1)
	for _, c := range []struct{ accept, coding, file string }{
		{"gzip", "gzip", app1[1:] + ".gz"},
		{"zstd", "zstd", app1[1:] + ".zst"},
		{"gzip, deflate, br, zstd", "zstd", app1[1:] + ".zst"},
		{"zstd;q=0.5, gzip", "gzip", app1[1:] + ".gz"},
		{"br", "", app1[1:]},
		{"identity", "", app1[1:]},
		{"*;q=0", "", app1[1:]},
		{"", "", app1[1:]},
	} {
		t.Run(c.accept, func(t *testing.T) {
			var h []string
			if c.accept != "" {
				h = []string{"Accept-Encoding", c.accept}
			}
			res := apptest.Fetch(t, "GET", url+app1, h...)
			assert.Equal(t, 200, res.StatusCode)
			assert.Equal(t, c.coding, res.Header.Get("Content-Encoding"))
			assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
			assert.Equal(t, read(t, c.file), res.Body)
			assert.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
			assert.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))
			if c.coding != "" {
				assert.NotEqual(t, identity.Header.Get("ETag"), res.Header.Get("ETag"), "a tag per representation")
				again := apptest.Fetch(t, "GET", url+app1, "Accept-Encoding", c.accept, "If-None-Match", res.Header.Get("ETag"))
				assert.Equal(t, 304, again.StatusCode)
			}
		})
	}
	gz := apptest.Fetch(t, "GET", url+app1, "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(strings.NewReader(gz.Body))
	require.NoError(t, err)
	decoded, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, identity.Body, string(decoded), "same decoded bytes")
	assert.NotEqual(t, 200, apptest.Fetch(t, "GET", url+app1+".gz").StatusCode, "siblings are not routes")
}

// Nothing outside the tree, no dotfile, no encoded trick reaches a file.
func TestNoPathTraversal(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"public/index.html": {Data: []byte("<p>index")},
		"public/a.txt":      {Data: []byte("a")},
		"public/.env":       {Data: []byte("SECRET")},
		"secret.txt":        {Data: []byte("SECRET")},
	}
	pub, err := fs.Sub(m, "public")
	require.NoError(t, err)
	s := apptest.New(t)
	s.Register(static.Plugin(pub, static.At("/files")))
	url := apptest.Serve(t, s)
	for _, p := range []string{
		"/files/../secret.txt", "/files/%2e%2e/secret.txt", "/files/..%2fsecret.txt", "/files/%2e%2e%2fsecret.txt",
		"/files/..%5csecret.txt", "/files/%5c..%5csecret.txt", "/files/a.txt%00", "/files/a.txt%00.html",
		"/files/.env", "/files/%2eenv", "/files//a.txt/..", "/files/a.txt/", "/files/A.TXT", "/secret.txt",
		"/files/..", "/files/./a.txt",
	} {
		res := apptest.Fetch(t, "GET", url+p)
		assert.Contains(t, []int{400, 404}, res.StatusCode, p)
		assert.NotContains(t, res.Body, "SECRET", p)
	}
	assert.Equal(t, "a", apptest.Fetch(t, "GET", url+"/files/a.txt").Body)
}

// Ported from @fastify/static: no listing unless asked; a listing
// shows what the plugin serves, escaped.
func TestDirectories(t *testing.T) {
	t.Parallel()
	url := serve(t)
	res := apptest.Fetch(t, "GET", url+"/sub/", "Accept", "application/json")
	assert.Equal(t, 404, res.StatusCode)

	s := apptest.New(t)
	s.Register(static.Plugin(site(t), static.Browse(), static.Index("")))
	url = apptest.Serve(t, s)
	res = apptest.Fetch(t, "GET", url+"/sub/")
	assert.Equal(t, 200, res.StatusCode)
	assert.Contains(t, res.Body, `<a href="./a.txt">a.txt</a>`)
	res = apptest.Fetch(t, "GET", url+"/assets/")
	assert.Contains(t, res.Body, "app-3f2a1b9c.js<")
	assert.NotContains(t, res.Body, ".gz")
	res = apptest.Fetch(t, "GET", url+"/")
	assert.Contains(t, res.Body, `<a href="./docs/">docs/</a>`)
	assert.NotContains(t, res.Body, ".env")
	assert.NotContains(t, res.Body, ".private")
	assert.Equal(t, 404, apptest.Fetch(t, "GET", url+"/sub").StatusCode)
}

// The SPA fallback: a browser navigation outside the API gets the
// shell; the API keeps its JSON 404s, a prefixed API context its own.
func TestFallback(t *testing.T) {
	t.Parallel()
	url := serve(t)
	shell := read(t, "index.html")
	html := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" // Chromium's navigation
	for _, c := range []struct {
		method, path, accept string
		status               int
		body                 string
	}{
		{"GET", "/todos/42/edit/x", html, 404, `"statusCode":404`},
		{"GET", "/settings/profile", html, 200, shell},
		{"HEAD", "/settings", html, 200, ""},
		{"GET", "/settings", "application/json", 404, `{"message":"Route GET:/settings not found","error":"Not Found","statusCode":404}`},
		{"GET", "/settings", "*/*", 404, `"statusCode":404`},
		{"GET", "/settings", "text/html;q=0", 404, `"statusCode":404`},
		{"POST", "/settings", html, 404, `"statusCode":404`},
		{"GET", "/todos/1/x", html, 404, `{"message":"Route GET:/todos/1/x not found","error":"Not Found","statusCode":404}`},
		{"GET", "/todos/1", html, 404, `"code":"NO_TODO"`},
		{"GET", "/api/nothing", html, 404, `{"api":"not here"}`},
		{"GET", "/assets/missing.js", "*/*", 404, `"statusCode":404`},
	} {
		t.Run(c.method+c.path+c.accept, func(t *testing.T) {
			res := apptest.Fetch(t, c.method, url+c.path, "Accept", c.accept)
			assert.Equal(t, c.status, res.StatusCode)
			if c.status == 200 {
				assert.Equal(t, c.body, res.Body)
				assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
				assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
			} else {
				assert.Contains(t, res.Body, c.body)
				assert.Contains(t, res.Header.Get("Content-Type"), "application/json")
			}
		})
	}
}

func TestRoutesAreUndocumented(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "t", Version: "1"}))
	s.Register(static.Plugin(site(t)))
	s.Get("/api", func() (string, error) { return "", nil })
	doc := apptest.Get(t, s, "/openapi.json")
	require.Equal(t, 200, doc.StatusCode)
	assert.Contains(t, doc.Body, `"/api"`)
	assert.NotContains(t, doc.Body, "assets")
	assert.NotContains(t, doc.Body, "index.html")

	s = apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "t", Version: "1"}))
	s.Register(static.Plugin(site(t), static.Documented()))
	assert.Contains(t, apptest.Get(t, s, "/openapi.json").Body, "/assets/app-3f2a1b9c.js")
}

// An fs.FS whose files cannot seek is served from memory.
type noSeek struct{ fs.FS }

type noSeekFile struct{ fs.File }

func (n noSeek) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return f, nil
	}
	return noSeekFile{f}, nil
}

func TestOptionsAndOtherTrees(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"app.css":                  {Data: bytes.Repeat([]byte("a{}"), 10), ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		"app.css.br":               {Data: []byte("BROTLI")},
		"logo.png":                 {Data: []byte("\x89PNG\r\n\x1a\n")},
		"noext":                    {Data: []byte("<html><body>x")},
		".well-known/security.txt": {Data: []byte("Contact: x")},
	}
	s := apptest.New(t)
	s.Register(static.Plugin(noSeek{m}, static.At("/static/"), static.CacheControl("public, max-age=60"),
		static.Immutable(func(name string) bool { return strings.HasSuffix(name, ".png") })))
	url := apptest.Serve(t, s)
	res := apptest.Fetch(t, "GET", url+"/static/app.css", "Accept-Encoding", "br")
	assert.Equal(t, "BROTLI", res.Body)
	assert.Equal(t, "br", res.Header.Get("Content-Encoding"))
	assert.Equal(t, "public, max-age=60", res.Header.Get("Cache-Control"))
	assert.Equal(t, "Fri, 02 Jan 2026 03:04:05 GMT", res.Header.Get("Last-Modified"))
	res = apptest.Fetch(t, "GET", url+"/static/logo.png")
	assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
	assert.Equal(t, static.ImmutableCache, res.Header.Get("Cache-Control"))
	assert.Equal(t, "text/html; charset=utf-8", apptest.Fetch(t, "GET", url+"/static/noext").Header.Get("Content-Type"))
	assert.Equal(t, "Contact: x", apptest.Fetch(t, "GET", url+"/static/.well-known/security.txt").Body)
	assert.Equal(t, 206, apptest.Fetch(t, "GET", url+"/static/app.css", "Range", "bytes=0-1").StatusCode)

	for _, o := range []static.Option{static.At("assets"), static.At("/a/:b"), static.Immutable(nil), static.MaxMemory(0)} {
		assert.ErrorIs(t, app.New().Register(static.Plugin(m, o)), static.ErrInvalidOption)
	}
	assert.ErrorIs(t, app.New().Register(static.Plugin(nil)), static.ErrInvalidOption)
	bad := app.New()
	bad.Register(static.Plugin(m, static.Fallback("missing.html")))
	assert.ErrorIs(t, bad.Ready(), static.ErrInvalidOption)
	bad = app.New()
	bad.Register(static.Plugin(fstest.MapFS{"a:b.txt": {Data: []byte("x")}}))
	assert.ErrorContains(t, bad.Ready(), "cannot be a route")
}

func TestHashedName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"assets/index-BX3kq9aF.js":               true,
		"assets/index-bxkqyafz.js":               false,
		"assets/index-BXKQYAFZ.js":               false,
		"main.3f2a1b9c.js":                       true,
		"main.3f2a1b9c.chunk.js":                 true,
		"app-5XKEG3TS.css":                       true,
		"chunk-2e4f.js":                          false,
		"bootstrap-material.css":                 false,
		"Readme-Overview.md":                     false,
		"index.html":                             false,
		"logo.svg":                               false,
		"fonts/inter-v12-latin.woff2":            false,
		"a-0123456789abcdef0123456789abcdef.png": true,
	} {
		assert.Equal(t, want, static.HashedName(name), name)
	}
}

// Ported from @fastify/static: names with spaces, brackets and non-ASCII
// letters are served at their percent-encoded URLs; an encoded slash is
// not a separator.
func TestPercentEncodedNames(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"[...]/a .md": {Data: []byte("brackets")},
		"café/ü.txt":  {Data: []byte("unicode")},
		"a/b.txt":     {Data: []byte("nested")},
	}
	s := apptest.New(t)
	s.Register(static.Plugin(m))
	url := apptest.Serve(t, s)
	assert.Equal(t, "brackets", apptest.Fetch(t, "GET", url+"/%5B...%5D/a%20.md").Body)
	assert.Equal(t, "brackets", apptest.Fetch(t, "GET", url+"/[...]/a%20.md").Body)
	assert.Equal(t, "unicode", apptest.Fetch(t, "GET", url+"/caf%C3%A9/%C3%BC.txt").Body)
	assert.Equal(t, "nested", apptest.Fetch(t, "GET", url+"/a/b.txt").Body)
	assert.Equal(t, 404, apptest.Fetch(t, "GET", url+"/a%2Fb.txt").StatusCode)
}

type brokenFS struct{}

func (brokenFS) Open(string) (fs.File, error) { return nil, fs.ErrPermission }

// What cannot work fails Ready with a sentence, not a request: an
// unreadable tree, a fallback in a context that cannot own 404s.
func TestStartUpFailures(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(static.Plugin(brokenFS{}))
	err := s.Ready()
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "static: reading the files")

	s = app.New()
	s.Register(func(s *app.Server) error {
		return s.Register(static.Plugin(site(t), static.Fallback("index.html")))
	})
	err = s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "app.Prefix")
}

// The bytes served are the bytes read at start-up, which the ETag
// describes: a file rewritten, or replaced by a symbolic link to a
// secret, after Ready changes nothing.
func TestFilesChangedOnDiskAfterReady(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join(dir, "app.js")
	require.NoError(t, os.WriteFile(f, []byte("console.log('v1')"), 0o600))
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("TOP SECRET"), 0o600))
	s := apptest.New(t, app.WithoutRequestLogging())
	s.Register(static.Plugin(os.DirFS(dir)))
	require.NoError(t, s.Ready())
	v1 := apptest.Get(t, s, "/app.js")
	require.Equal(t, http.StatusOK, v1.StatusCode)
	require.Equal(t, "console.log('v1')", v1.Body)

	require.NoError(t, os.WriteFile(f, []byte("console.log('v2 is longer')"), 0o600))
	v2 := apptest.Get(t, s, "/app.js")
	assert.Equal(t, v1.Body, v2.Body, "served as read at start-up")
	assert.Equal(t, v1.Header.Get("Etag"), v2.Header.Get("Etag"))

	require.NoError(t, os.Remove(f))
	require.NoError(t, os.Symlink(secret, f))
	r := apptest.Get(t, s, "/app.js")
	assert.NotContains(t, r.Body, "TOP SECRET")
	assert.Equal(t, v1.Body, r.Body)
}

// MaxMemory bounds the bytes kept, precompressed siblings included.
func TestMaxMemory(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"a.js":    {Data: bytes.Repeat([]byte("a"), 600)},
		"a.js.gz": {Data: bytes.Repeat([]byte("z"), 300)},
		"b.js":    {Data: bytes.Repeat([]byte("b"), 100)},
	}
	tests := []struct {
		limit int64
		fails bool
	}{
		{1000, false},
		{999, true},
		{600, true},
	}
	for _, tt := range tests {
		s := app.New(app.WithoutRequestLogging())
		s.Register(static.Plugin(m, static.MaxMemory(tt.limit)))
		err := s.Ready()
		if tt.fails {
			assert.ErrorIs(t, err, static.ErrTooLarge, "limit %d", tt.limit)
			assert.ErrorContains(t, err, fmt.Sprintf("%d bytes", tt.limit))
		} else {
			assert.NoError(t, err, "limit %d", tt.limit)
		}
		require.NoError(t, s.Close(context.Background()))
	}
}
