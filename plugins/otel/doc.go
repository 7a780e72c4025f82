// Package otel is Burrow's OpenTelemetry plugin: a SERVER span per
// request, named after its route ("GET /todos/{id}"), with the standard
// HTTP attributes, http.route and burrow.context; errors recorded where
// the error handler sees them; the http.server.request.duration metric;
// and the trace and span ids in every log line of the request. With
// LifecycleSpans, each hook, the handler, and each request value's
// constructor and cleanup (a transaction's commit) is a child span.
// Setup configures the global tracer and meter providers from the
// standard OTEL_* variables, exporting over OTLP/HTTP.
//
//	s.Register(otel.Plugin())  // the global TracerProvider, MeterProvider and propagator
//
// By default the plugin does not trust a request's trace context: each
// request starts a trace of its own, sampled by the server's sampler,
// with the span the traceparent names as a link, and incoming baggage is
// dropped. Trusted, a client could hide its requests from tracing (a
// traceparent flagged unsampled, under the parent-based sampler Setup
// uses), write the trace id of its choice into the server's log lines,
// and send baggage on to the services this one calls. A service whose
// callers are its own services, or which sits behind a gateway that sets
// or cleans these headers, continues their traces with TrustIncoming:
//
//	s.Register(otel.Plugin(otel.TrustIncoming())) // W3C trace context and baggage continued
//
// The plugin is wrapped: registered in the root it traces every request;
// registered in a plugin's body it traces that context and its
// descendants, not their siblings. The span starts once the request is
// routed, before the access log and any middleware, so the middleware,
// hooks, handler and every log line see it; it ends once the response is
// written. A request no route matched is a span named after its method
// only (as the semantic conventions say), owned by the context of the
// not-found handler answering it; a 405 by the context owning the path.
//
// NewWebSockets is the websocket plugin's Observer in OpenTelemetry
// metrics: the connections open and the messages of each WebSocket route.
package otel
