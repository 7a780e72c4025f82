package app_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// TestSlogWritesToTheZapCore: a context's and a request's *slog.Logger
// write to the server's zap core, with the context and the request id.
func TestSlogWritesToTheZapCore(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	s := app.New(app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
	s.Register(func(c *app.Server) error {
		c.Slog().Info("loaded", "routes", 1)
		c.Slog().Debug("below the core's level")
		return c.Get("/", func(req *httpx.Request) error {
			req.Slog().Info("handled", slog.Group("user", "name", "ada"))
			return nil
		})
	}, app.Name("api"))
	require.NoError(t, s.Ready())
	r := httptest.NewRequest("GET", "/", nil)
	res, err := s.Inject(r)
	require.NoError(t, err)
	res.Body.Close()

	entries := logs.AllUntimed()
	require.Len(t, entries, 2)
	assert.Equal(t, "loaded", entries[0].Message)
	assert.Equal(t, map[string]any{"context": "root > api", "routes": int64(1)}, entries[0].ContextMap())
	assert.Equal(t, "handled", entries[1].Message)
	assert.Equal(t, map[string]any{"context": "root > api", "reqId": "req-1", "user": map[string]any{"name": "ada"}},
		entries[1].ContextMap())
}

// TestWithSlogHandler: every line Burrow writes, the access log's
// included, goes to the application's slog.Handler.
func TestWithSlogHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := app.New(app.WithSlogHandler(slog.NewJSONHandler(&buf, nil)), app.WithRequestIDHeader("X-Request-Id"))
	s.Get("/", func(req *httpx.Request) error {
		req.Log().Info("from zap", zap.Int("n", 1))
		req.Slog().Info("from slog", "n", 2)
		return nil
	})
	require.NoError(t, s.Ready())
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Request-Id", "abc-1")
	res, err := s.Inject(r)
	require.NoError(t, err)
	res.Body.Close()

	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		msgs = append(msgs, m["msg"].(string))
		assert.Equal(t, "abc-1", m["reqId"], line)
		assert.Equal(t, "root", m["context"], line)
		assert.Equal(t, "INFO", m["level"], line)
		assert.Contains(t, m, "time", line)
	}
	assert.Equal(t, []string{"incoming request", "from zap", "from slog", "request completed"}, msgs)
}

// Burrow logs to a log/slog handler, and a handler's *slog.Logger
// carries the request's id.
func ExampleWithSlogHandler() {
	h := slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a stable output for this example
			}
			return a
		},
	})
	s := app.New(app.WithSlogHandler(h), app.WithoutRequestLogging())
	s.Get("/", func(req *httpx.Request) error {
		req.Slog().Info("hello", "user", "ada")
		return nil
	})
	if err := s.Ready(); err != nil {
		panic(err)
	}
	res, err := s.Inject(httptest.NewRequest("GET", "/", nil))
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	// Output:
	// {"level":"INFO","msg":"hello","context":"root","reqId":"req-1","user":"ada"}
}
