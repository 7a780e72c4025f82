package prometheus_test

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/plugins/prometheus"
)

func TestWebSocketsCountsConnectionsAndMessages(t *testing.T) {
	t.Parallel()
	m := prometheus.New(prometheus.NoRuntimeMetrics())
	w := m.WebSockets()
	require.Same(t, w, m.WebSockets(), "one set of metrics, registered once")
	w.Connections("/rooms/:room", "root > chat", 1)
	w.Connections("/rooms/:room", "root > chat", 1)
	w.Connections("/rooms/:room", "root > chat", -1)
	w.Message("/rooms/:room", "root > chat", "in")
	w.Message("/rooms/:room", "root > chat", "out")
	w.Message("/rooms/:room", "root > chat", "out")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `websocket_connections_open{context="root > chat",route="/rooms/:room"} 1`)
	assert.Contains(t, string(body), `websocket_messages_total{context="root > chat",direction="in",route="/rooms/:room"} 1`)
	assert.Contains(t, string(body), `websocket_messages_total{context="root > chat",direction="out",route="/rooms/:room"} 2`)
}
