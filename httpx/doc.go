// Package httpx is Burrow's HTTP layer: the Request and Reply a handler
// works with, the router, and the framework's error type with its JSON
// body.
//
// Nothing here knows about plugins or contexts. The app package compiles a
// route's hooks and parameter plan at start-up and hands httpx the pieces
// it runs per request; the types here are built to be pooled and reused,
// so a request allocates as little as possible.
package httpx
