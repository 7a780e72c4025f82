package prometheus

import (
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"
)

// WebSockets counts the connections and messages of WebSocket routes:
// it is the websocket plugin's Observer (websocket.Observe(m.WebSockets())),
// which this module need not import. Its metrics, registered in m's
// registry on the first call:
//
//   - websocket_connections_open, a gauge of the connections open, by
//     route and context;
//   - websocket_messages_total, a counter of the messages, by route,
//     context and direction ("in" received, "out" sent).
type WebSockets struct {
	open     *prom.GaugeVec
	messages *prom.CounterVec
}

// WebSockets returns m's WebSocket metrics, the same on every call.
func (m *Metrics) WebSockets() *WebSockets {
	m.wsOnce.Do(func() {
		w := &WebSockets{
			open: prom.NewGaugeVec(prom.GaugeOpts{
				Name:        "websocket_connections_open",
				Help:        "WebSocket connections open, by route pattern and context.",
				ConstLabels: m.cfg.constLabels,
			}, []string{"route", "context"}),
			messages: prom.NewCounterVec(prom.CounterOpts{
				Name:        "websocket_messages_total",
				Help:        "WebSocket messages, by route pattern, context and direction (in, out).",
				ConstLabels: m.cfg.constLabels,
			}, []string{"route", "context", "direction"}),
		}
		m.cfg.registry.MustRegister(w.open, w.messages)
		m.ws = w
	})
	return m.ws
}

// Connections adds delta to route's open connections.
func (w *WebSockets) Connections(route, context string, delta int) {
	w.open.WithLabelValues(route, context).Add(float64(delta))
}

// Message counts one message of route in direction.
func (w *WebSockets) Message(route, context, direction string) {
	w.messages.WithLabelValues(route, context, direction).Inc()
}

// wsState is the lazily made WebSocket metrics of a Metrics.
type wsState struct {
	wsOnce sync.Once
	ws     *WebSockets
}
