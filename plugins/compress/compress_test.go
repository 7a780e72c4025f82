package compress_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/compress"
)

func TestMain(m *testing.M) { apptest.Main(m) }

type item struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// items is a JSON answer of about 4 KiB.
func items() []item {
	out := make([]item, 64)
	for i := range out {
		out[i] = item{i, "buy milk and bread and something else " + strings.Repeat("x", i%7)}
	}
	return out
}

var page = "<!doctype html><html><body>" + strings.Repeat("<p>hello, compressed world</p>", 100) + "</body></html>"

// decoder reads body decoded from coding ("" for none).
func decoder(t *testing.T, coding string, body io.Reader) io.Reader {
	t.Helper()
	switch coding {
	case "":
		return body
	case "gzip":
		gr, err := gzip.NewReader(body)
		require.NoError(t, err)
		return gr
	case "br":
		return brotli.NewReader(body)
	case "zstd":
		zr, err := zstd.NewReader(body)
		require.NoError(t, err)
		t.Cleanup(zr.Close)
		return zr
	}
	t.Fatalf("unknown coding %q", coding)
	return nil
}

func decode(t *testing.T, coding, body string) string {
	t.Helper()
	b, err := io.ReadAll(decoder(t, coding, strings.NewReader(body)))
	require.NoError(t, err)
	return string(b)
}

// server is one server with every kind of answer, behind the plugin.
func server(t *testing.T, opts ...compress.Option) string {
	t.Helper()
	s := apptest.New(t)
	require.NoError(t, s.Register(compress.Plugin(opts...)))
	s.Get("/json", func() ([]item, error) { return items(), nil })
	s.Get("/small", func() ([]item, error) { return items()[:2], nil })
	type in struct {
		app.In
		N int `query:"n"`
	}
	app.Get(s, "/typed", func(_ context.Context, in in) ([]item, error) { return items(), nil })
	app.Get(s, "/tagged", func(context.Context, struct{}) ([]item, error) { return items(), nil },
		app.ETag(), app.CacheControl("private, no-cache"))
	s.Get("/png", func(rep *httpx.Reply) error {
		return rep.Type("image/png").Send(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1024))
	})
	s.Get("/encoded", func(rep *httpx.Reply) error {
		rep.SetHeader("Content-Encoding", "gzip")
		return rep.Type("application/json").Send(bytes.Repeat([]byte("x"), 2048))
	})
	s.Get("/vary", func(rep *httpx.Reply) error {
		rep.SetHeader("Vary", "Origin")
		return rep.Send(items())
	})
	s.Get("/vary-ae", func(rep *httpx.Reply) error {
		rep.SetHeader("Vary", "accept-encoding")
		return rep.Send(items())
	})
	s.Get("/nocontent", func(rep *httpx.Reply) error { return rep.Code(204).Send(nil) })
	s.Get("/etag", func(rep *httpx.Reply) error {
		rep.SetHeader("ETag", `"v1"`)
		if req := rep.Request(); req.Raw().Header.Get("If-None-Match") != "" {
			return rep.Code(304).Send(nil)
		}
		return rep.Send(items())
	})
	s.Get("/sniffed", func(rep *httpx.Reply) error {
		_, err := io.WriteString(rep.Raw(), page)
		return err
	})
	s.Get("/file", func(rep *httpx.Reply) error {
		rep.SetHeader("ETag", `"f1"`)
		return rep.ServeContent("page.html", time.Time{}, strings.NewReader(page))
	})
	s.Get("/stream", func(rep *httpx.Reply) error {
		return rep.Type("text/plain").Stream(strings.NewReader(page))
	})
	s.Get("/controller", func(rep *httpx.Reply) error {
		rc := http.NewResponseController(rep.Raw())
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			return err
		}
		rep.Raw().Header().Set("Content-Type", "text/plain")
		if _, err := io.WriteString(rep.Raw(), "part one;"); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		_, err := io.WriteString(rep.Raw(), "part two")
		return err
	})
	s.Get("/disabled", func(rep *httpx.Reply) error {
		compress.Disable(rep.Raw())
		return rep.Send(items())
	})
	s.Get("/skipped", func() ([]item, error) { return items(), nil }, compress.Skip())
	s.Get("/fail", func() (string, error) { return "", httpx.NewError(500, "BIG", strings.Repeat("error ", 300)) })
	s.Mount("/std", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	s.Register(func(s *app.Server) error {
		s.Register(compress.Off())
		return s.Get("/secret", func() ([]item, error) { return items(), nil })
	}, app.Prefix("/off"))
	s.Register(func(s *app.Server) error {
		s.Register(compress.Plugin(compress.Encodings("gzip")))
		return s.Get("/json", func() ([]item, error) { return items(), nil })
	}, app.Prefix("/nested"))
	return apptest.Serve(t, s)
}

func identityOf(t *testing.T, url string) string {
	t.Helper()
	res := apptest.Fetch(t, "GET", url)
	require.Equal(t, 200, res.StatusCode)
	require.Empty(t, res.Header.Get("Content-Encoding"))
	return res.Body
}

// Ported from @fastify/compress: the coding by Accept-Encoding, with
// q-values and refusals, on a JSON answer above the minimum size.
func TestNegotiation(t *testing.T) {
	t.Parallel()
	url := server(t)
	want := identityOf(t, url+"/json")
	for _, c := range []struct{ accept, coding string }{
		{"gzip", "gzip"}, {"br", "br"}, {"zstd", "zstd"}, {"x-gzip", "gzip"},
		{"gzip, deflate, br, zstd", "zstd"}, {"gzip, deflate, br", "br"},
		{"gzip;q=1, br;q=0.5", "gzip"}, {"br;q=0.9, zstd;q=0.5, gzip;q=0.1", "br"},
		{"*", "zstd"}, {"zstd;q=0, *", "br"},
		{"identity", ""}, {"*;q=0", ""}, {"gzip;q=0", ""}, {"deflate", ""}, {"gzip;q=x", ""},
		{"identity;q=1, *;q=0", ""},
		{"invalid,br,gzip", "br"}, {"  gzip  ", "gzip"}, {"GZip", "gzip"}, {"*, *;q=0.5", "zstd"},
	} {
		t.Run(c.accept, func(t *testing.T) {
			res := apptest.Fetch(t, "GET", url+"/json", "Accept-Encoding", c.accept)
			assert.Equal(t, 200, res.StatusCode)
			assert.Equal(t, c.coding, res.Header.Get("Content-Encoding"))
			assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
			assert.Equal(t, want, decode(t, c.coding, res.Body))
			if c.coding != "" {
				if n := res.Header.Get("Content-Length"); n != "" {
					assert.Equal(t, strconv.Itoa(len(res.Body)), n, "the encoded length")
				}
				assert.Less(t, len(res.Body), len(want))
			}
		})
	}
	res := apptest.Fetch(t, "GET", url+"/json")
	assert.Empty(t, res.Header.Get("Content-Encoding"), "no Accept-Encoding")
	assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
}

// Every way of answering is compressed alike.
func TestEveryKindOfAnswerIsCompressed(t *testing.T) {
	t.Parallel()
	url := server(t)
	for _, path := range []string{"/json", "/typed", "/sniffed", "/file", "/stream", "/std/x", "/fail", "/nested/json"} {
		t.Run(path, func(t *testing.T) {
			want := apptest.Fetch(t, "GET", url+path)
			require.Empty(t, want.Header.Get("Content-Encoding"))
			res := apptest.Fetch(t, "GET", url+path, "Accept-Encoding", "gzip")
			assert.Equal(t, want.StatusCode, res.StatusCode)
			assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
			assert.Equal(t, []string{"Accept-Encoding"}, res.Header.Values("Vary"), "one Vary")
			assert.Equal(t, want.Body, decode(t, "gzip", res.Body))
			assert.Equal(t, want.Header.Get("Content-Type"), res.Header.Get("Content-Type"))
		})
	}
}

func TestWhatIsNotCompressed(t *testing.T) {
	t.Parallel()
	url := server(t)
	for _, c := range []struct {
		path, why string
		status    int
		vary      bool
	}{
		{"/small", "under the minimum size", 200, true},
		{"/png", "a type off the list", 200, false},
		{"/encoded", "already encoded", 200, false},
		{"/nocontent", "a 204", 204, false},
		{"/off/secret", "a context with Off", 200, false},
		{"/disabled", "Disable in the handler", 200, false},
		{"/skipped", "a route with Skip", 200, false},
	} {
		t.Run(c.why, func(t *testing.T) {
			res := apptest.Fetch(t, "GET", url+c.path, "Accept-Encoding", "gzip, br, zstd")
			assert.Equal(t, c.status, res.StatusCode)
			if c.path == "/encoded" {
				assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
				assert.Equal(t, strings.Repeat("x", 2048), res.Body, "not encoded twice")
			} else {
				assert.Empty(t, res.Header.Get("Content-Encoding"))
			}
			assert.Equal(t, c.vary, res.Header.Get("Vary") == "Accept-Encoding")
		})
	}
}

// Ported from @fastify/compress: Accept-Encoding is added to a Vary the
// handler set, once.
func TestVaryIsKept(t *testing.T) {
	t.Parallel()
	url := server(t)
	res := apptest.Fetch(t, "GET", url+"/vary", "Accept-Encoding", "gzip")
	assert.Equal(t, []string{"Origin", "Accept-Encoding"}, res.Header.Values("Vary"))
	res = apptest.Fetch(t, "GET", url+"/vary-ae", "Accept-Encoding", "gzip")
	assert.Equal(t, []string{"accept-encoding"}, res.Header.Values("Vary"))
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
}

// A compressed answer's ETag is weak; a 304 has no body and no coding,
// and varies as its 200 does.
func TestETagsAndNotModified(t *testing.T) {
	t.Parallel()
	url := server(t)
	res := apptest.Fetch(t, "GET", url+"/etag", "Accept-Encoding", "gzip")
	assert.Equal(t, `W/"v1"`, res.Header.Get("ETag"))
	res = apptest.Fetch(t, "GET", url+"/etag")
	assert.Equal(t, `"v1"`, res.Header.Get("ETag"))
	res = apptest.Fetch(t, "GET", url+"/etag", "Accept-Encoding", "gzip", "If-None-Match", `W/"v1"`)
	assert.Equal(t, 304, res.StatusCode)
	assert.Empty(t, res.Body)
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
}

// A 304 carries the ETag its 200 carried (RFC 9110 §15.4.5), so that a
// cache freshens the copy it holds: the weak one when the request
// negotiated a coding, as the compressed 200 had it; the handler's when
// it negotiated none or compression is off.
func TestNotModifiedCarriesTheTagOfItsOK(t *testing.T) {
	t.Parallel()
	url := server(t)
	tests := []struct {
		name, path, tag string
		header          []string
	}{
		{"a handler's 304", "/etag", `"v1"`, []string{"Accept-Encoding", "gzip"}},
		{"ServeContent's 304", "/file", `"f1"`, []string{"Accept-Encoding", "br"}},
		{"no coding", "/etag", `"v1"`, nil},
		{"identity only", "/etag", `"v1"`, []string{"Accept-Encoding", "identity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok := apptest.Fetch(t, "GET", url+tt.path, tt.header...)
			require.Equal(t, 200, ok.StatusCode)
			tag := ok.Header.Get("ETag")
			require.Contains(t, []string{tt.tag, "W/" + tt.tag}, tag)
			for _, inm := range []string{tag, tt.tag} {
				res := apptest.Fetch(t, "GET", url+tt.path, append([]string{"If-None-Match", inm}, tt.header...)...)
				assert.Equal(t, 304, res.StatusCode)
				assert.Equal(t, tag, res.Header.Get("ETag"), "If-None-Match: %s", inm)
				assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
			}
		})
	}
}

// HEAD gets GET's headers, and no body.
func TestHeadIsConsistentWithGet(t *testing.T) {
	t.Parallel()
	url := server(t)
	for _, path := range []string{"/json", "/small", "/file", "/stream", "/sniffed", "/png"} {
		t.Run(path, func(t *testing.T) {
			get := apptest.Fetch(t, "GET", url+path, "Accept-Encoding", "br")
			head := apptest.Fetch(t, "HEAD", url+path, "Accept-Encoding", "br")
			assert.Equal(t, get.StatusCode, head.StatusCode)
			assert.Empty(t, head.Body)
			for _, k := range []string{"Content-Encoding", "Vary", "Content-Type", "Accept-Ranges", "Etag"} {
				assert.Equal(t, get.Header.Get(k), head.Header.Get(k), k)
			}
		})
	}
}

// A Range request gets its bytes as they are: 206 of the identity
// answer; the full answer to a request without Range is compressed and
// offers no ranges.
func TestRangesAreNotCompressed(t *testing.T) {
	t.Parallel()
	url := server(t)
	res := apptest.Fetch(t, "GET", url+"/file", "Accept-Encoding", "gzip", "Range", "bytes=0-99")
	assert.Equal(t, 206, res.StatusCode)
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	assert.Equal(t, page[:100], res.Body)
	assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"), "its 200 varies: so does a range of it")
	res = apptest.Fetch(t, "GET", url+"/png", "Accept-Encoding", "gzip", "Range", "bytes=0-9")
	assert.Empty(t, res.Header.Get("Vary"), "a type that is never compressed does not vary")
	res = apptest.Fetch(t, "GET", url+"/file", "Accept-Encoding", "gzip")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	assert.Empty(t, res.Header.Get("Accept-Ranges"))
	assert.Equal(t, `W/"f1"`, res.Header.Get("ETag"))
	res = apptest.Fetch(t, "GET", url+"/file")
	assert.Equal(t, "bytes", res.Header.Get("Accept-Ranges"))
}

// http.ResponseController reaches the connection through the plugin's
// writer, and a flush sends what was compressed so far.
func TestResponseControllerWorks(t *testing.T) {
	t.Parallel()
	url := server(t)
	res := apptest.Fetch(t, "GET", url+"/controller", "Accept-Encoding", "zstd")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "zstd", res.Header.Get("Content-Encoding"), "a flush streams: compressed below the minimum size")
	assert.Equal(t, "part one;part two", decode(t, "zstd", res.Body))
}

// Each server-sent event arrives, decoded, while the stream is open: the
// handler sends the next only once the client has read the one before.
func TestEventsAreFlushedAsWritten(t *testing.T) {
	t.Parallel()
	for _, coding := range []string{"gzip", "br", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			s.Register(compress.Plugin())
			read := make(chan struct{})
			s.Get("/events", func(rep *httpx.Reply) error {
				es, err := rep.SSE()
				if err != nil {
					return err
				}
				for i := range 3 {
					if err := es.Send(httpx.Event{Data: strings.Repeat("e", 10+i)}); err != nil {
						return err
					}
					select {
					case <-read:
					case <-es.Context().Done():
						return nil
					}
				}
				return nil
			})
			url := apptest.Serve(t, s)
			req, err := http.NewRequest("GET", url+"/events", nil)
			require.NoError(t, err)
			req.Header.Set("Accept-Encoding", coding)
			res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, coding, res.Header.Get("Content-Encoding"))
			br := bufio.NewReader(decoder(t, coding, res.Body))
			for i := range 3 {
				assert.Equal(t, "data: "+strings.Repeat("e", 10+i)+"\n", apptest.ReadEvent(t, br))
				read <- struct{}{}
			}
		})
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	url := server(t, compress.MinSize(0), compress.Types("application/json"), compress.Encodings("br", "gzip"))
	res := apptest.Fetch(t, "GET", url+"/small", "Accept-Encoding", "gzip, br, zstd")
	assert.Equal(t, "br", res.Header.Get("Content-Encoding"), "no zstd, no minimum size")
	res = apptest.Fetch(t, "GET", url+"/sniffed", "Accept-Encoding", "gzip")
	assert.Empty(t, res.Header.Get("Content-Encoding"), "html is off the list")

	unread := app.New()
	unread.Get("/", func() (string, error) { return "", nil }, compress.Skip())
	assert.ErrorIs(t, unread.Ready(), app.ErrUnreadConfig, "Skip without a plugin to apply it")

	for _, o := range []compress.Option{
		compress.MinSize(-1), compress.Types("json"), compress.Encodings("deflate"), compress.Encodings(),
		compress.GzipLevel(10), compress.BrotliLevel(12), compress.ZstdLevel(99),
	} {
		err := app.New().Register(compress.Plugin(o))
		assert.ErrorIs(t, err, compress.ErrInvalidOption)
	}
}

// Disable reports whether it found the plugin's writer.
func TestDisableOutsideThePlugin(t *testing.T) {
	t.Parallel()
	assert.False(t, compress.Disable(nil))
	s := apptest.New(t)
	found := make(chan bool, 1)
	s.Get("/", func(rep *httpx.Reply) error {
		found <- compress.Disable(rep.Raw())
		return rep.Send("ok")
	})
	apptest.Get(t, s, "/")
	assert.False(t, <-found)
}

// A handler that takes the connection over (an upgrade) gets it through
// the plugin's writer, and what it writes goes as it is.
func TestHijackPassesThrough(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(compress.Plugin())
	s.Get("/upgrade", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		rw.Flush()
	}))
	url := apptest.Serve(t, s)
	res := apptest.Fetch(t, "GET", url+"/upgrade", "Accept-Encoding", "gzip")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "hijacked", res.Body)
	assert.Empty(t, res.Header.Get("Content-Encoding"))
}

// A second status is ignored, as net/http ignores it, whether the answer
// is still pending or compressed.
func TestASecondStatusIsIgnored(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(compress.Plugin())
	s.Get("/twice", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(201)
		w.WriteHeader(500)
		io.WriteString(w, page)
		w.WriteHeader(502)
	}))
	url := apptest.Serve(t, s)
	for _, accept := range []string{"gzip", "identity"} {
		res := apptest.Fetch(t, "GET", url+"/twice", "Accept-Encoding", accept)
		assert.Equal(t, 201, res.StatusCode, accept)
		assert.Equal(t, page, decode(t, res.Header.Get("Content-Encoding"), res.Body))
	}
}
