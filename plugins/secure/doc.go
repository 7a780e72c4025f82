// Package secure sets the security headers of a context's answers, as
// helmet does for Express and Fastify: helmet v8's default set, each
// header configurable or off, and a Content-Security-Policy whose nonce,
// fresh per request, handlers read as a request value.
//
// The plugin is wrapped: registered in a context, it covers that context
// and its descendants — every route, the 405 answers of their paths, and
// the not-found handler of a context that sets one (the root always has
// one) — whatever the status, 2xx, 401, 404, 405 or 5xx. It adds a
// middleware that sets the headers before the route runs, so anything
// the route sets itself wins: a handler, a hook or a mounted handler that
// sets its own Content-Security-Policy keeps it (the OpenAPI /docs page
// does). A context registering it again replaces its ancestor's policy
// for its own answers, header by header: an API context can send a
// stricter policy than the HTML one above it. A route changes its own
// with the route options Override and Skip; a context drops an
// ancestor's headers with Off.
package secure
