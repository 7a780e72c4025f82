// Package interop_test proves Burrow works with the net/http libraries
// users bring — OpenTelemetry's otelhttp, rs/cors, klauspost's gzhttp,
// coder/websocket, http.FileServer — over a real socket. It is a module
// of its own so that the framework's go.mod keeps its three
// dependencies.
package interop_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/gzhttp"
	"github.com/rs/cors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// origin is the one origin the CORS context allows; key the bearer key of
// the WebSocket context.
const (
	origin = "https://app.example"
	key    = "interop-key"
)

// harness is one Burrow server holding a context per library, served on
// a real socket, with every log line observed (net/http's ErrorLog goes to
// the logger named "http") and every span recorded.
//
//	root               OnResponse hook recording each request's status
//	├─ tracedContext   otelhttp       GET /traced/items/:id
//	├─ plainContext    (nothing)      GET /plain/items/:id
//	├─ corsContext     rs/cors        GET, POST /cors/items
//	├─ gzipContext     gzhttp         GET /gzip/report (JSON), GET /gzip/events (SSE)
//	├─ wsContext       bearer-auth    GET /ws (coder/websocket echo)
//	└─ staticContext   Mount          /static → http.FileServerFS
type harness struct {
	base  string
	s     *app.Server
	logs  *observer.ObservedLogs
	spans *tracetest.SpanRecorder

	// next lets /gzip/events send its next event: the test sends on it
	// once it has read the one before.
	next chan struct{}

	mu       sync.Mutex
	statuses map[string][]int // what OnResponse saw, by request URI
}

// staticFiles is what the mounted FileServer serves.
var staticFiles = fstest.MapFS{
	"hello.txt":      {Data: []byte("hello, static world"), ModTime: time.Unix(1_700_000_000, 0)},
	"docs/index.txt": {Data: []byte("docs")},
}

// report is /gzip/report's reply: JSON well over gzhttp's 1 KiB minimum.
func report() map[string]any {
	rows := make([]map[string]any, 100)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": "row", "tags": []string{"a", "b", "c"}}
	}
	return map[string]any{"rows": rows}
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	h := &harness{logs: logs, spans: spans, next: make(chan struct{}), statuses: map[string][]int{}}
	s := app.New(app.WithLogger(zap.New(core)))
	h.s = s

	require.NoError(t, s.AddHook(app.OnResponse, func(req *httpx.Request, rep *httpx.Reply) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.statuses[req.Raw().RequestURI] = append(h.statuses[req.Raw().RequestURI], rep.Status())
	}))
	item := func(req *httpx.Request) (map[string]string, error) {
		return map[string]string{"id": req.Param("id")}, nil
	}
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Use(otelhttp.NewMiddleware("api", otelhttp.WithTracerProvider(tp))),
			s.Get("/traced/items/:id", item),
		)
	}, app.Name("tracedContext")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return s.Get("/plain/items/:id", item)
	}, app.Name("plainContext")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		c := cors.New(cors.Options{
			AllowedOrigins: []string{origin},
			AllowedMethods: []string{http.MethodGet, http.MethodPost},
			AllowedHeaders: []string{"Content-Type"},
		})
		return errors.Join(
			s.Use(c.Handler),
			s.Get("/cors/items", func() (string, error) { return "items", nil }),
			s.Post("/cors/items", func() (string, error) { return "made", nil }),
		)
	}, app.Name("corsContext")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Use(func(next http.Handler) http.Handler { return gzhttp.GzipHandler(next) }),
			s.Get("/gzip/report", func() (map[string]any, error) { return report(), nil }),
			s.Get("/gzip/events", func(rep *httpx.Reply) error {
				es, err := rep.SSE()
				if err != nil {
					return err
				}
				for n := range 3 {
					if n > 0 {
						select {
						case <-h.next:
						case <-es.Context().Done():
							return nil
						}
					}
					if err := es.Send(httpx.Event{Event: "tick", Data: strings.Repeat("x", n+1)}); err != nil {
						return err
					}
				}
				return nil
			}),
		)
	}, app.Name("gzipContext")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Register(bearer.Plugin(bearer.Keys(key))),
			s.Get("/ws", http.HandlerFunc(echo)),
		)
	}, app.Name("wsContext")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return s.Mount("/static", http.FileServerFS(staticFiles))
	}, app.Name("staticContext")))

	require.NoError(t, s.Ready())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	h.base = "http://" + ln.Addr().String()
	t.Cleanup(func() {
		h.close(t)
		require.NoError(t, <-served)
		h.assertNoServerErrors(t)
	})
	return h
}

// echo is a WebSocket handler written for net/http: it accepts the
// upgrade and sends back every message until the client closes.
func echo(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the client
	}
	defer c.CloseNow()
	for {
		typ, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		if err := c.Write(r.Context(), typ, msg); err != nil {
			return
		}
	}
}

// hangLimit bounds what a test waits for: a stream's next event, a
// WebSocket's echo, the server's close. It is generous; it only turns a
// hang (an event stream that is no longer flushed) into a failure.
const hangLimit = 10 * time.Second

// allowNext lets /gzip/events send its next event, or fails the test once
// ctx is done: a handler that has returned would never take it.
func (h *harness) allowNext(ctx context.Context, t *testing.T) {
	t.Helper()
	select {
	case h.next <- struct{}{}:
	case <-ctx.Done():
		t.Fatalf("/gzip/events did not take its next event: %v", context.Cause(ctx))
	}
}

// close closes the server: once it returns, every handler and middleware
// has finished, so the spans are ended and the access log written.
func (h *harness) close(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	require.NoError(t, h.s.Close(ctx))
}

// assertNoServerErrors checks that net/http's ErrorLog (the logger named
// "http") is empty: no "superfluous response.WriteHeader", no write after
// a hijack, nothing.
func (h *harness) assertNoServerErrors(t *testing.T) {
	t.Helper()
	var lines []string
	for _, e := range h.logs.All() {
		if e.LoggerName == "http" || strings.Contains(e.Message, "superfluous") {
			lines = append(lines, e.Message)
		}
	}
	assert.Empty(t, lines, "the server's error log")
}

// status is the status the OnResponse hooks saw for uri: one per request.
func (h *harness) status(uri string) []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.statuses[uri]
}

// completed is the access log's "request completed" lines of the
// requests to uri, found through their "incoming request" line's reqId.
func (h *harness) completed(uri string) []map[string]any {
	ids := map[any]bool{}
	for _, e := range h.logs.FilterMessage("incoming request").FilterField(zap.String("url", uri)).All() {
		ids[e.ContextMap()["reqId"]] = true
	}
	var out []map[string]any
	for _, e := range h.logs.FilterMessage("request completed").All() {
		if m := e.ContextMap(); ids[m["reqId"]] {
			out = append(out, m)
		}
	}
	return out
}

// do sends req and returns the answer with its body read.
func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

func (h *harness) request(t *testing.T, method, uri string, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, h.base+uri, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// decodeJSON decodes body into v.
func decodeJSON(t *testing.T, body string, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(body), v), body)
}
