// Package compress compresses a context's answers with zstd, brotli or
// gzip, as the client's Accept-Encoding prefers (q-values honoured,
// refusals too), as @fastify/compress does for Fastify.
//
// The plugin is wrapped: registered in a context, it adds a middleware
// that wraps the response writer of every answer of the context and its
// descendants — Send, typed routes, streams, server-sent events,
// ServeContent, mounted handlers, the 405 and not-found answers alike.
// An answer is compressed when its content type is on the allow-list
// and it reaches the minimum size (1 KiB), or it is flushed before that
// (a stream: each flush then sends what was compressed so far, so an
// event arrives when it is written). It is never compressed when it is
// already encoded, is a 204, 206 or 304, or answers a Range request.
// Answers of an allowed type get "Vary: Accept-Encoding" whether they
// are compressed or not; a compressed one loses its Content-Length and
// Accept-Ranges, and its ETag becomes weak. HEAD gets the headers GET
// would get. Compression is turned off for a context with Off, for a
// route with Skip, and for one answer with Disable.
//
// It lives in a module of its own, so that the framework's go.mod keeps
// its dependencies: github.com/klauspost/compress for gzip and zstd,
// github.com/andybalholm/brotli for brotli.
package compress
