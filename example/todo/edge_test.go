package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/example/todo/ui"
)

// htmlType is the page's Content-Type.
const htmlType = "text/html; charset=utf-8"

// notFoundRoute is Burrow's 404 of a path no route has.
func notFoundRoute(method, path string) string {
	return fmt.Sprintf(`{"message":"Route %s:%s not found","error":"Not Found","statusCode":404}`, method, path)
}

// assets are the files index.html names, by URL path.
func assets(t *testing.T) []string {
	t.Helper()
	index, err := fs.ReadFile(ui.FS(), "index.html")
	require.NoError(t, err)
	var paths []string
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(string(index), -1) {
		paths = append(paths, m[1])
	}
	require.Len(t, paths, 3, "the icon, the style sheet and the script")
	return paths
}

// decode undoes coding ("" or identity: nothing).
func decode(t *testing.T, coding, body string) string {
	t.Helper()
	var r io.Reader
	switch coding {
	case "", "identity":
		return body
	case "gzip":
		zr, err := gzip.NewReader(strings.NewReader(body))
		require.NoError(t, err)
		r = zr
	case "br":
		r = brotli.NewReader(strings.NewReader(body))
	case "zstd":
		zr, err := zstd.NewReader(strings.NewReader(body))
		require.NoError(t, err)
		defer zr.Close()
		r = zr
	default:
		require.FailNow(t, "unknown coding", coding)
	}
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

// varies reports whether h's Vary names name.
func varies(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), name) {
				return true
			}
		}
	}
	return false
}

// TestPage: GET / is the page's shell, its assets have content-hashed
// names cached for a year, every file answers If-None-Match with 304
// and comes precompressed as Accept-Encoding prefers.
func TestPage(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	index, err := fs.ReadFile(ui.FS(), "index.html")
	require.NoError(t, err)

	shell := s.exchange(t, "GET", "/", "")
	require.Equal(t, 200, shell.status)
	assert.Equal(t, htmlType, shell.header.Get("Content-Type"))
	assert.Equal(t, string(index), shell.body)
	assert.NotContains(t, shell.body, "//", "nothing from another origin")

	paths := append([]string{"/", "/index.html"}, assets(t)...)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			plain := s.exchange(t, "GET", path, "")
			require.Equal(t, 200, plain.status, path)
			etag := plain.header.Get("ETag")
			require.NotEmpty(t, etag)
			if strings.HasPrefix(path, "/assets/") {
				assert.Regexp(t, `\.[0-9a-f]{16}\.(js|css|svg)$`, path, "a content-hashed name")
				assert.Equal(t, "public, max-age=31536000, immutable", plain.header.Get("Cache-Control"))
			}
			assert.True(t, varies(plain.header, "Accept-Encoding"))

			again := s.exchange(t, "GET", path, "", "If-None-Match", etag)
			assert.Equal(t, 304, again.status)
			assert.Empty(t, again.body)

			for _, coding := range []string{"br", "gzip", "zstd"} {
				enc := s.exchange(t, "GET", path, "", "Accept-Encoding", coding)
				require.Equal(t, 200, enc.status)
				assert.Equal(t, coding, enc.header.Get("Content-Encoding"))
				assert.True(t, varies(enc.header, "Accept-Encoding"))
				assert.Equal(t, plain.header.Get("Content-Type"), enc.header.Get("Content-Type"))
				assert.Equal(t, plain.body, decode(t, coding, enc.body), "%s decodes to the file", coding)
				tag := enc.header.Get("ETag")
				require.NotEmpty(t, tag)
				assert.NotEqual(t, etag, tag, "a tag per representation")
				cached := s.exchange(t, "GET", path, "", "Accept-Encoding", coding, "If-None-Match", tag)
				assert.Equal(t, 304, cached.status)
				assert.Empty(t, cached.body)
			}
		})
	}
}

// TestFallback: a browser's navigation to a path outside the API gets the
// shell; the API's paths, and any request that is not a navigation, keep
// Burrow's JSON 404.
func TestFallback(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	index, err := fs.ReadFile(ui.FS(), "index.html")
	require.NoError(t, err)
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	tests := []struct {
		name, method, path, accept string
		shell                      bool
	}{
		{"a page of the app", "GET", "/done", browser, true},
		{"deeper", "GET", "/lists/3/items", "text/html", true},
		{"HEAD", "HEAD", "/done", "text/html", true},
		{"under the API", "GET", "/todos/1/x", "text/html", false},
		{"under the session", "GET", "/session/x", "text/html", false},
		{"fetch", "GET", "/done", "*/*", false},
		{"JSON", "GET", "/done", "application/json", false},
		{"no Accept", "GET", "/done", "", false},
		{"a missing asset", "GET", "/assets/app.0000000000000000.js", "*/*", false},
		{"POST", "POST", "/done", "text/html", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a answer
			if tc.accept == "" {
				a = s.exchange(t, tc.method, tc.path, "")
			} else {
				a = s.exchange(t, tc.method, tc.path, "", "Accept", tc.accept)
			}
			if tc.shell {
				assert.Equal(t, 200, a.status)
				assert.Equal(t, htmlType, a.header.Get("Content-Type"))
				if tc.method == "GET" {
					assert.Equal(t, string(index), a.body)
				}
				etag := a.header.Get("ETag")
				require.NotEmpty(t, etag)
				again := s.exchange(t, tc.method, tc.path, "", "Accept", tc.accept, "If-None-Match", etag)
				assert.Equal(t, 304, again.status)
				assert.Empty(t, again.body)
				return
			}
			assert.Equal(t, 404, a.status)
			assert.Equal(t, "application/json; charset=utf-8", a.header.Get("Content-Type"))
			assert.Equal(t, notFoundRoute(tc.method, tc.path), a.body)
		})
	}
}

// TestSecurityHeaders: every answer — the API's, the page's, a file's, a
// 304, a 401, 403, 404, 405, a preflight — carries the security headers,
// and HTML a policy that runs no inline script.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := start(t, env(), zap.NewNop(), "-users", users, "-cors-origins", "https://a.example")
	a := s.do(t, "POST", "/todos", alice, jsonType, `{"title":"a"}`)
	require.Equal(t, 201, a.status)
	shell := s.exchange(t, "GET", "/", "")
	script := assets(t)[2]
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
	}{
		{"the page", "GET", "/", "", nil, 200},
		{"the page, compressed", "GET", "/", "", []string{"Accept-Encoding", "gzip"}, 200},
		{"the page, unchanged", "GET", "/", "", []string{"If-None-Match", shell.header.Get("ETag")}, 304},
		{"the fallback", "GET", "/done", "", []string{"Accept", "text/html"}, 200},
		{"a script", "GET", script, "", nil, 200},
		{"the API", "GET", "/todos", "", []string{"Authorization", alice}, 200},
		{"a create", "POST", "/todos", `{"title":"b"}`, []string{"Authorization", alice, "Content-Type", jsonType}, 201},
		{"healthz", "GET", "/healthz", "", nil, 200},
		{"the document", "GET", "/openapi.json", "", nil, 200},
		{"the docs page", "GET", "/docs", "", nil, 200},
		{"a log-in", "POST", "/session", "user=alice&token=tokenA", []string{"Content-Type", "application/x-www-form-urlencoded"}, 204},
		{"400", "GET", "/todos?limit=0", "", []string{"Authorization", alice}, 400},
		{"401", "GET", "/todos", "", nil, 401},
		{"401 of a log-in", "POST", "/session", "user=alice&token=no", []string{"Content-Type", "application/x-www-form-urlencoded"}, 401},
		{"403", "POST", "/session", "user=alice&token=tokenA", []string{"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "cross-site"}, 403},
		{"404 of the API", "GET", "/todos/9", "", []string{"Authorization", alice}, 404},
		{"404 of a path", "GET", "/nothing", "", nil, 404},
		{"404 of a file", "GET", "/assets/none.js", "", nil, 404},
		{"405", "PUT", "/todos/1", "", []string{"Authorization", alice}, 405},
		{"405 of the page", "POST", "/", "", nil, 405},
		{"413", "POST", "/session", strings.Repeat("x", maxLoginBody+1), []string{"Content-Type", "application/x-www-form-urlencoded"}, 413},
		{"415", "POST", "/todos", "x", []string{"Authorization", alice, "Content-Type", "text/csv"}, 415},
		{"a preflight", "OPTIONS", "/todos/1", "", []string{"Origin", "https://a.example", "Access-Control-Request-Method", "PATCH"}, 204},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := s.exchange(t, tc.method, tc.path, tc.body, tc.header...)
			require.Equal(t, tc.status, a.status, a.body)
			checkSecurityHeaders(t, a.header)
		})
	}
}

// checkSecurityHeaders checks what every answer must carry, and a
// policy for HTML that runs no inline script.
func checkSecurityHeaders(t *testing.T, h http.Header) {
	t.Helper()
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.Contains(t, []string{"no-referrer", "strict-origin-when-cross-origin"}, h.Get("Referrer-Policy"))
	assert.Equal(t, "same-origin", h.Get("Cross-Origin-Opener-Policy"))
	assert.Equal(t, "same-origin", h.Get("Cross-Origin-Resource-Policy"))
	csp := directives(h.Get("Content-Security-Policy"))
	if h.Get("X-Frame-Options") == "" {
		assert.NotEmpty(t, csp["frame-ancestors"], "X-Frame-Options or frame-ancestors")
	}
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		return
	}
	assert.Contains(t, []string{"'self'", "'none'"}, strings.Join(csp["default-src"], " "), "default-src 'self' or stricter")
	scripts, ok := csp["script-src"]
	if !ok {
		scripts = csp["default-src"]
	}
	assert.NotContains(t, scripts, "'unsafe-inline'")
	assert.NotContains(t, scripts, "'unsafe-eval'")
}

// directives reads a Content-Security-Policy into its directives'
// sources.
func directives(policy string) map[string][]string {
	d := map[string][]string{}
	for part := range strings.SplitSeq(policy, ";") {
		f := strings.Fields(part)
		if len(f) > 0 {
			d[strings.ToLower(f[0])] = f[1:]
		}
	}
	return d
}

// TestServerErrorHeaders: a 500 carries the security headers too.
func TestServerErrorHeaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := openDB(ctx, "")
	require.NoError(t, err)
	defer db.Close()
	s, err := newServer(ctx, db, setup{users: []user{{"alice", "tokenA"}}}, withoutLogs()...)
	require.NoError(t, err)
	require.NoError(t, s.Ready())
	defer s.Close(ctx)
	_, err = db.ExecContext(ctx, `DROP TABLE todos`)
	require.NoError(t, err)
	base := apptest.Serve(t, s) // a real socket
	res := apptest.Fetch(t, "GET", base+"/todos", "Authorization", alice)
	require.Equal(t, http.StatusInternalServerError, res.StatusCode, res.Body)
	checkSecurityHeaders(t, res.Header)
}

// TestCORS: with -cors-origins, the origins named get CORS headers on
// every answer and their preflights are answered without a token; any
// other origin gets none.
func TestCORS(t *testing.T) {
	t.Parallel()
	s := start(t, env(), zap.NewNop(), "-users", users, "-cors-origins", "https://a.example,https://b.example")
	noCORS := start(t, env(), zap.NewNop(), "-users", users)

	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		for _, origin := range []string{"https://a.example", "https://b.example"} {
			for _, tc := range []struct {
				method, path string
				header       []string
				status       int
			}{
				{"GET", "/todos", []string{"Authorization", alice}, 200},
				{"POST", "/todos", []string{"Authorization", alice, "Content-Type", jsonType}, 201},
				{"GET", "/todos", nil, 401},
				{"GET", "/todos/99", []string{"Authorization", alice}, 404},
				{"GET", "/healthz", nil, 200},
				{"GET", "/", nil, 200},
			} {
				body := ""
				if tc.method == "POST" {
					body = fmt.Sprintf(`{"title":"from %s"}`, origin)
				}
				a := s.exchange(t, tc.method, tc.path, body, append([]string{"Origin", origin}, tc.header...)...)
				require.Equal(t, tc.status, a.status, "%s %s from %s: %s", tc.method, tc.path, origin, a.body)
				assert.Equal(t, origin, a.header.Get("Access-Control-Allow-Origin"), "%s %s", tc.method, tc.path)
				assert.True(t, varies(a.header, "Origin"), "%s %s: Vary names Origin", tc.method, tc.path)
				if tc.status == 201 {
					assert.Contains(t, strings.ToLower(a.header.Get("Access-Control-Expose-Headers")), "location")
				}
			}
		}
	})
	t.Run("preflight", func(t *testing.T) {
		t.Parallel()
		a := s.exchange(t, "OPTIONS", "/todos/1", "", "Origin", "https://a.example",
			"Access-Control-Request-Method", "PATCH", "Access-Control-Request-Headers", "authorization,content-type")
		require.Equal(t, 204, a.status, "no token needed: %s", a.body)
		assert.Empty(t, a.body)
		assert.Equal(t, "https://a.example", a.header.Get("Access-Control-Allow-Origin"))
		assert.Contains(t, fields(a.header.Get("Access-Control-Allow-Methods")), "patch")
		assert.Subset(t, fields(a.header.Get("Access-Control-Allow-Headers")), []string{"authorization", "content-type"})
		assert.NotEmpty(t, a.header.Get("Access-Control-Max-Age"))
		assert.True(t, varies(a.header, "Origin"))

		// The path serves no PUT: no answer lists it.
		a = s.exchange(t, "OPTIONS", "/todos/1", "", "Origin", "https://a.example", "Access-Control-Request-Method", "PUT")
		assert.NotContains(t, fields(a.header.Get("Access-Control-Allow-Methods")), "put")
		assert.Empty(t, a.header.Get("Access-Control-Allow-Origin"), "status %d", a.status)
		// Nor a POST on /todos/:id.
		a = s.exchange(t, "OPTIONS", "/todos/1", "", "Origin", "https://a.example", "Access-Control-Request-Method", "POST")
		assert.NotContains(t, fields(a.header.Get("Access-Control-Allow-Methods")), "post")
	})
	t.Run("disallowed", func(t *testing.T) {
		t.Parallel()
		for _, origin := range []string{"https://evil.example", "https://a.example.evil", "http://a.example", "null"} {
			for _, a := range []answer{
				s.exchange(t, "GET", "/todos", "", "Origin", origin, "Authorization", alice),
				s.exchange(t, "GET", "/todos", "", "Origin", origin),
				s.exchange(t, "OPTIONS", "/todos/1", "", "Origin", origin,
					"Access-Control-Request-Method", "PATCH", "Access-Control-Request-Headers", "authorization,content-type"),
			} {
				for name := range a.header {
					assert.False(t, strings.HasPrefix(strings.ToLower(name), "access-control-allow-"), "%s: %s", origin, name)
				}
			}
		}
	})
	t.Run("no flag", func(t *testing.T) {
		t.Parallel()
		for _, a := range []answer{
			noCORS.exchange(t, "GET", "/todos", "", "Origin", "https://a.example", "Authorization", alice),
			noCORS.exchange(t, "GET", "/", "", "Origin", "https://a.example"),
			noCORS.exchange(t, "GET", "/nothing", "", "Origin", "https://a.example"),
			noCORS.exchange(t, "OPTIONS", "/todos/1", "", "Origin", "https://a.example",
				"Access-Control-Request-Method", "PATCH", "Access-Control-Request-Headers", "authorization"),
		} {
			for name := range a.header {
				assert.False(t, strings.HasPrefix(strings.ToLower(name), "access-control-"), name)
			}
		}
	})
}

// fields is a comma-separated header value's items, in lower case.
func fields(v string) []string {
	var f []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			f = append(f, strings.ToLower(item))
		}
	}
	return f
}

// TestCompression: a JSON answer of 1 KiB or more is compressed with the
// coding the client prefers, decoding to the identity answer; a refusal,
// a smaller answer, or no Accept-Encoding, get it as it is.
func TestCompression(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	var batch []newTodo
	for i := range 40 {
		batch = append(batch, newTodo{Title: fmt.Sprintf("a todo long enough to fill a kibibyte soon, number %d", i)})
	}
	require.Equal(t, 201, s.do(t, "POST", "/todos/batch", alice, jsonType, js(batch)).status)
	plain := s.exchange(t, "GET", "/todos?limit=100", "", "Authorization", alice)
	require.Equal(t, 200, plain.status)
	require.Greater(t, len(plain.body), 1024)
	assert.Empty(t, plain.header.Get("Content-Encoding"))

	tests := []struct {
		accept, coding string
	}{
		{"gzip", "gzip"},
		{"br", "br"},
		{"zstd", "zstd"},
		{"gzip, deflate, br, zstd", "zstd"}, // Chrome's: a tie, the server's order
		{"gzip;q=1, br;q=0.5", "gzip"},
		{"br;q=1, gzip;q=0.5", "br"},
		{"zstd;q=0.9, br;q=0.8, gzip;q=0.1", "zstd"},
		{"gzip;q=0.2, br;q=0.9, zstd;q=0.1", "br"},
		{"*", "zstd"},
		{"identity", ""},
		{"*;q=0", ""},
		{"gzip;q=0", ""},
		{"gzip;q=0, identity", ""},
		{"compress", ""},
	}
	for _, tc := range tests {
		t.Run(tc.accept, func(t *testing.T) {
			t.Parallel()
			a := s.exchange(t, "GET", "/todos?limit=100", "", "Authorization", alice, "Accept-Encoding", tc.accept)
			require.Equal(t, 200, a.status)
			assert.Equal(t, tc.coding, a.header.Get("Content-Encoding"))
			assert.True(t, varies(a.header, "Accept-Encoding"))
			assert.Equal(t, plain.body, decode(t, tc.coding, a.body))
			if tc.coding != "" {
				assert.Less(t, len(a.body), len(plain.body))
			}
		})
	}
	t.Run("under 1 KiB", func(t *testing.T) {
		t.Parallel()
		a := s.exchange(t, "GET", "/todos/1", "", "Authorization", alice, "Accept-Encoding", "gzip")
		require.Equal(t, 200, a.status)
		assert.Empty(t, a.header.Get("Content-Encoding"))
		assert.Equal(t, js(todo{ID: 1, Title: batch[0].Title}), a.body)
	})
	t.Run("HEAD", func(t *testing.T) {
		t.Parallel()
		for _, coding := range []string{"gzip", "br", "zstd"} {
			get := s.exchange(t, "GET", "/todos?limit=100", "", "Authorization", alice, "Accept-Encoding", coding)
			head := s.exchange(t, "HEAD", "/todos?limit=100", "", "Authorization", alice, "Accept-Encoding", coding)
			require.Equal(t, 200, head.status)
			assert.Equal(t, get.header.Get("Content-Encoding"), head.header.Get("Content-Encoding"))
			assert.Equal(t, coding, head.header.Get("Content-Encoding"))
			assert.Empty(t, head.body)
		}
	})
	t.Run("no Accept-Encoding", func(t *testing.T) {
		t.Parallel()
		req, err := http.NewRequest("GET", s.base+"/todos?limit=100", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", alice)
		res, err := s.raw.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Empty(t, res.Header.Get("Content-Encoding"))
		assert.True(t, bytes.Equal([]byte(plain.body), b))
	})
}

// TestClientIP: with -trusted-proxies, the access log's client address is
// the right-most X-Forwarded-For address that is not a trusted proxy; a
// peer that is not trusted cannot choose its address.
func TestClientIP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, proxies, forwarded, want string
	}{
		{"a proxy's client", "127.0.0.1/32", "203.0.113.9", "203.0.113.9"},
		{"the right-most", "127.0.0.1/32", "198.51.100.1, 203.0.113.9", "203.0.113.9"},
		{"past trusted hops", "127.0.0.1/32,10.0.0.0/8", "198.51.100.1, 203.0.113.9, 10.1.2.3", "203.0.113.9"},
		{"no header", "127.0.0.1/32", "", "127.0.0.1"},
		{"a forged header", "10.0.0.0/8", "203.0.113.9", "127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.InfoLevel)
			s := start(t, env(), zap.New(core), "-users", users, "-trusted-proxies", tc.proxies)
			var header []string
			if tc.forwarded != "" {
				header = []string{"X-Forwarded-For", tc.forwarded}
			}
			require.Equal(t, 200, s.exchange(t, "GET", "/healthz", "", header...).status)
			incoming := logs.FilterMessage("incoming request").All()
			require.Len(t, incoming, 1)
			assert.Equal(t, tc.want, fmt.Sprint(incoming[0].ContextMap()["clientIp"]))
		})
	}
}

// TestBadEdgeFlags: an origin or a proxy the plugins cannot use stops the
// server at start-up, naming it.
func TestBadEdgeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"-cors-origins", "a.example"}, "a.example"},
		{[]string{"-cors-origins", "https://a.example/path"}, "https://a.example/path"},
		{[]string{"-trusted-proxies", "a.proxy"}, "a.proxy"},
		{[]string{"-redis", "http://127.0.0.1:1"}, "invalid -redis"},
	}
	for _, tc := range tests {
		err := run(context.Background(), append([]string{"-port", "0", "-users", users}, tc.args...), env(), zap.NewNop(), nil)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.err)
	}
}
