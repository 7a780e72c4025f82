package interop_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/burrow-go/burrow/app/apptest"
)

// TestOtelhttpNamesSpansByRoutePattern: otelhttp added with Use on one
// context names its spans by the route's pattern (Request.Pattern, as
// ServeMux writes it) and records nothing for a sibling context.
func TestOtelhttpNamesSpansByRoutePattern(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, uri := range []string{"/traced/items/1", "/traced/items/2", "/plain/items/1"} {
		res, body := do(t, h.request(t, "GET", uri))
		require.Equal(t, http.StatusOK, res.StatusCode, body)
		var got map[string]string
		decodeJSON(t, body, &got)
		assert.Equal(t, uri[len(uri)-1:], got["id"])
	}
	h.close(t) // every span has ended

	spans := h.spans.Ended()
	require.Len(t, spans, 2, "one span per request of tracedContext, none for plainContext")
	for _, sp := range spans {
		assert.Equal(t, "GET /traced/items/{id}", sp.Name())
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range sp.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		assert.Equal(t, "/traced/items/{id}", attrs["http.route"].AsString())
		assert.EqualValues(t, http.StatusOK, attrs["http.response.status_code"].AsInt64())
	}
}

// TestCORSAnswersPreflightForItsContextOnly: rs/cors added with Use
// answers a preflight for its context's paths; another context's path
// gets Burrow's 405, with no CORS header.
func TestCORSAnswersPreflightForItsContextOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	preflight := []string{"Origin", origin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type"}

	t.Run("its context", func(t *testing.T) {
		res, body := do(t, h.request(t, "OPTIONS", "/cors/items", preflight...))
		assert.Equal(t, http.StatusNoContent, res.StatusCode, body)
		assert.Equal(t, origin, res.Header.Get("Access-Control-Allow-Origin"))
		assert.Equal(t, "POST", res.Header.Get("Access-Control-Allow-Methods"))
		assert.Equal(t, "content-type", strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")))
		assert.Empty(t, body)
	})
	t.Run("an origin it does not allow", func(t *testing.T) {
		pf := append([]string{}, preflight...)
		pf[1] = "https://evil.example"
		res, _ := do(t, h.request(t, "OPTIONS", "/cors/items", pf...))
		assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
	})
	t.Run("a simple request of its context", func(t *testing.T) {
		res, body := do(t, h.request(t, "GET", "/cors/items", "Origin", origin))
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "items", body)
		assert.Equal(t, origin, res.Header.Get("Access-Control-Allow-Origin"))
	})
	t.Run("another context's path", func(t *testing.T) {
		res, body := do(t, h.request(t, "OPTIONS", "/plain/items/1", preflight...))
		assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, body)
		assert.Equal(t, "GET, HEAD", res.Header.Get("Allow"))
		for name := range res.Header {
			assert.False(t, strings.HasPrefix(name, "Access-Control-"), "CORS header %s on another context's path", name)
		}
		res, _ = do(t, h.request(t, "GET", "/plain/items/1", "Origin", origin))
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
	})

	// The preflights cors answered without calling next are in the access
	// log, in order, with the status they got.
	h.close(t)
	var logged []any
	for _, line := range h.completed("/cors/items") {
		logged = append(logged, line["statusCode"])
	}
	assert.Equal(t, []any{int64(http.StatusNoContent), int64(http.StatusNoContent), int64(http.StatusOK)}, logged)
}

// TestGzipCompressesJSONAndKeepsSSEFlushing: gzhttp added with Use
// compresses a JSON reply, and an event stream through it still reaches
// the client one event at a time while it is open.
func TestGzipCompressesJSONAndKeepsSSEFlushing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)

	t.Run("JSON", func(t *testing.T) {
		req := h.request(t, "GET", "/gzip/report", "Accept-Encoding", "gzip")
		res, body := do(t, req) // asked for gzip itself: the transport leaves the body compressed
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
		assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
		assert.Less(t, len(body), 1000, "compressed")

		res, body = do(t, h.request(t, "GET", "/gzip/report")) // the transport's own gzip, undone
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.True(t, res.Uncompressed, "the reply was compressed")
		var got struct{ Rows []map[string]any }
		decodeJSON(t, body, &got)
		assert.Len(t, got.Rows, 100)
	})

	t.Run("SSE", func(t *testing.T) {
		// Bounded: with flushing broken, the events (or the headers) never
		// arrive, and the test fails instead of hanging.
		ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
		defer cancel()
		// Asked for gzip itself, the test gets the compressed bytes as
		// they arrive and decompresses them as a browser would.
		req := h.request(t, "GET", "/gzip/events", "Accept-Encoding", "gzip").WithContext(ctx)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		require.Equal(t, "gzip", res.Header.Get("Content-Encoding"), "the stream is compressed")
		zr, err := gzip.NewReader(res.Body)
		require.NoError(t, err)

		events := bufio.NewReader(zr)
		for n := 1; n <= 3; n++ {
			// The handler sends event n only after the test has read
			// event n-1: each arrives while the stream is open, alone.
			if n > 1 {
				h.allowNext(ctx, t)
			}
			assert.Equal(t, "event: tick\ndata: "+strings.Repeat("x", n)+"\n", apptest.ReadEvent(t, events))
		}
	})
}

// TestWebSocketEchoesBehindBearerAuth: coder/websocket serves a route of a
// context guarded by bearer-auth: the upgrade is refused with 401 without
// a key, and with one, messages echo.
func TestWebSocketEchoesBehindBearerAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	url := "ws" + strings.TrimPrefix(h.base, "http") + "/ws"
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()

	t.Run("without a key", func(t *testing.T) {
		c, res, err := websocket.Dial(ctx, url, nil)
		require.Error(t, err)
		if c != nil {
			c.CloseNow()
		}
		require.NotNil(t, res)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	})
	t.Run("with a wrong key", func(t *testing.T) {
		_, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer nope"}}})
		require.Error(t, err)
		require.NotNil(t, res)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	})
	t.Run("with the key", func(t *testing.T) {
		c, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
		require.NoError(t, err)
		assert.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
		for _, msg := range []string{"one", "two", strings.Repeat("long ", 1000)} {
			require.NoError(t, c.Write(ctx, websocket.MessageText, []byte(msg)))
			typ, got, err := c.Read(ctx)
			require.NoError(t, err)
			assert.Equal(t, websocket.MessageText, typ)
			assert.Equal(t, msg, string(got))
		}
		require.NoError(t, c.Write(ctx, websocket.MessageBinary, []byte{0, 1, 2}))
		typ, got, err := c.Read(ctx)
		require.NoError(t, err)
		assert.Equal(t, websocket.MessageBinary, typ)
		assert.Equal(t, []byte{0, 1, 2}, got)
		require.NoError(t, c.Close(websocket.StatusNormalClosure, "done"))
	})
	h.close(t)
	for _, line := range h.completed("/ws") {
		assert.Contains(t, []any{int64(http.StatusUnauthorized), int64(http.StatusSwitchingProtocols)}, line["statusCode"])
	}
	assert.Equal(t, []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusSwitchingProtocols}, h.status("/ws"))
}

// TestFileServerReportsItsStatus: http.FileServer mounted with Mount
// reports 200, 206, 301 and 404 as written, in the access log and to the
// OnResponse hooks.
func TestFileServerReportsItsStatus(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name, uri string
		header    []string
		status    int
		body      string
	}{
		{"a file", "/static/hello.txt", nil, http.StatusOK, "hello, static world"},
		{"a range", "/static/hello.txt?range", []string{"Range", "bytes=0-4"}, http.StatusPartialContent, "hello"},
		{"a directory without its slash", "/static/docs", nil, http.StatusMovedPermanently, ""},
		{"no such file", "/static/nope.txt", nil, http.StatusNotFound, "404 page not found\n"},
		{"not modified", "/static/hello.txt?since", []string{"If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT"}, http.StatusNotModified, ""},
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range tests {
		req := h.request(t, "GET", tt.uri, tt.header...)
		res, err := client.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, tt.status, res.StatusCode, tt.name)
		if tt.status != http.StatusMovedPermanently {
			assert.Equal(t, tt.body, string(b), tt.name)
		}
	}
	h.close(t)
	for _, tt := range tests {
		lines := h.completed(tt.uri)
		if assert.Len(t, lines, 1, tt.name) {
			assert.EqualValues(t, tt.status, lines[0]["statusCode"], tt.name)
			assert.EqualValues(t, len(tt.body), lines[0]["responseSize"], tt.name)
		}
		assert.Equal(t, []int{tt.status}, h.status(tt.uri), tt.name)
	}
}

// TestServerErrorLogStaysEmpty sends one request of every kind above to
// one server — a traced route, a CORS preflight and a refused one, a
// compressed reply and a compressed stream, a refused and an accepted
// WebSocket upgrade, each status of the FileServer — and checks
// net/http's ErrorLog has no line: no "superfluous
// response.WriteHeader", nothing written after a hijack. (Every test's
// clean-up checks it too.)
func TestServerErrorLogStaysEmpty(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Bounded, as the stream and the WebSocket below would otherwise
	// hang the test if flushing or the echo broke.
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(req *http.Request) int {
		res, err := noRedirect.Do(req)
		require.NoError(t, err)
		_, err = io.Copy(io.Discard, res.Body)
		require.NoError(t, err)
		require.NoError(t, res.Body.Close())
		return res.StatusCode
	}
	preflight := []string{"Origin", origin, "Access-Control-Request-Method", "POST"}
	requests := []struct {
		req    *http.Request
		status int
	}{
		{h.request(t, "GET", "/traced/items/7"), http.StatusOK},
		{h.request(t, "OPTIONS", "/cors/items", preflight...), http.StatusNoContent},
		{h.request(t, "OPTIONS", "/plain/items/7", preflight...), http.StatusMethodNotAllowed},
		{h.request(t, "GET", "/gzip/report", "Accept-Encoding", "gzip"), http.StatusOK},
		{h.request(t, "GET", "/static/hello.txt"), http.StatusOK},
		{h.request(t, "GET", "/static/hello.txt", "Range", "bytes=1-2"), http.StatusPartialContent},
		{h.request(t, "GET", "/static/docs"), http.StatusMovedPermanently},
		{h.request(t, "GET", "/static/nope"), http.StatusNotFound},
		{h.request(t, "GET", "/ws"), http.StatusUnauthorized},
	}
	for _, r := range requests {
		assert.Equal(t, r.status, send(r.req), r.req.Method+" "+r.req.URL.Path)
	}

	res, err := http.DefaultClient.Do(h.request(t, "GET", "/gzip/events", "Accept-Encoding", "gzip").WithContext(ctx))
	require.NoError(t, err)
	zr, err := gzip.NewReader(res.Body)
	require.NoError(t, err)
	events := bufio.NewReader(zr)
	apptest.ReadEvent(t, events)
	h.allowNext(ctx, t)
	apptest.ReadEvent(t, events)
	h.allowNext(ctx, t)
	apptest.ReadEvent(t, events)
	require.NoError(t, res.Body.Close())

	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.base, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
	require.NoError(t, err)
	require.NoError(t, c.Write(ctx, websocket.MessageText, []byte("ping")))
	_, msg, err := c.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "ping", string(msg))
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))

	h.close(t)
	h.assertNoServerErrors(t)
	// The log was being written: each request to a route is in it.
	assert.Len(t, h.logs.FilterMessage("request completed").All(), len(requests)+2)
}
