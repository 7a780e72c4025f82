// Package httpx is Burrow's HTTP layer: the Request and Reply a handler
// works with, the router, and the framework's error type with its JSON
// body.
//
// Nothing here knows about plugins or contexts. The app package compiles a
// route's hooks and parameter plan at start-up and hands httpx the pieces
// it runs per request. An Exchange holds what is pooled and reused (slots,
// parameter and encoding buffers), so a request allocates as little as
// possible; the Request and Reply it hands out are never reused, so one
// kept past its request panics instead of serving another's data.
package httpx
