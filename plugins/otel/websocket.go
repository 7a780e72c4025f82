package otel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// WebSockets counts the connections and messages of WebSocket routes in
// mp's meters: it is the websocket plugin's Observer
// (websocket.Observe(ws)), which this module need not import. Its
// instruments, each with the attributes http.route and burrow.context:
//
//   - websocket.connections.open, an up-down counter of the connections
//     open;
//   - websocket.messages, a counter of the messages, with
//     websocket.direction "in" (received) or "out" (sent).
type WebSockets struct {
	open     metric.Int64UpDownCounter
	messages metric.Int64Counter
}

// NewWebSockets makes the instruments in mp (otel.GetMeterProvider() when
// nil).
func NewWebSockets(mp metric.MeterProvider) (*WebSockets, error) {
	if mp == nil {
		mp = newConfig(nil).meterProvider
	}
	m := mp.Meter(ScopeName)
	open, err := m.Int64UpDownCounter("websocket.connections.open",
		metric.WithDescription("WebSocket connections open."), metric.WithUnit("{connection}"))
	if err != nil {
		return nil, err
	}
	messages, err := m.Int64Counter("websocket.messages",
		metric.WithDescription("WebSocket messages received (in) and sent (out)."), metric.WithUnit("{message}"))
	if err != nil {
		return nil, err
	}
	return &WebSockets{open: open, messages: messages}, nil
}

// Connections adds delta to route's open connections.
func (w *WebSockets) Connections(route, context string, delta int) {
	w.open.Add(bg, int64(delta), metric.WithAttributes(attribute.String("http.route", route), attribute.String("burrow.context", context)))
}

// Message counts one message of route in direction.
func (w *WebSockets) Message(route, context, direction string) {
	w.messages.Add(bg, 1, metric.WithAttributes(attribute.String("http.route", route),
		attribute.String("burrow.context", context), attribute.String("websocket.direction", direction)))
}

// bg is the context of the measurements, which carry no trace.
var bg = context.Background()
