// Package prometheus is Burrow's Prometheus plugin: the RED metrics of a
// server's requests, labelled by route pattern and context, in a
// registry of the server's own, and the handler Prometheus scrapes.
//
//	m := prometheus.New()
//	s.Register(m.Plugin())                 // observe this context and its descendants
//	admin.Get("/metrics", m.Handler())     // scrape it where you like (an admin listener)
//
// Metrics, each labelled method, route, status and context:
//
//   - http_server_requests_total, a counter;
//   - http_server_request_duration_seconds, a histogram with classic
//     buckets and native (sparse) ones, which a Prometheus scraping the
//     protobuf format with native histograms on prefers;
//
// and http_server_active_requests, a gauge of the requests being served,
// labelled context only; then the Go runtime's and the process's
// metrics (go_*, process_*).
//
// The labels keep the number of series bounded whatever clients send:
// route is the matched route's pattern ("/todos/{id}"), "unmatched" for
// every path no route has (with the context of the not-found handler
// answering), "method_not_allowed" for a 405 (with the context owning
// the path); method is one of the standard methods or "_OTHER"; status
// is the status code; context is the path of the context that answered
// ("root > api").
//
// When the request's context carries a sampled OpenTelemetry span (the
// otel plugin's, or any middleware's), the duration and the counter get
// an exemplar with its trace_id, shown in the OpenMetrics format.
//
// WebSockets is the websocket plugin's Observer: the connections open
// and the messages of each WebSocket route (websocket_connections_open,
// websocket_messages_total).
//
// Each Metrics has its own registry, never the global one, so a test may
// build as many servers as it likes. Registry gives it for the
// application's own metrics.
package prometheus
