// Package static serves the files of an fs.FS — an embed.FS first —
// under a URL prefix, as @fastify/static does for Fastify.
//
// The files are read once, when the server starts, and served from
// memory from then on: each gets a route of its own (undocumented in
// OpenAPI) and a strong ETag made from a hash of its content, since an
// embed.FS has no modification times. What is served is exactly what the
// ETag describes: a file of an os.DirFS changed, removed or replaced by a
// symbolic link after start-up is served as it was read. The bytes kept
// (files and precompressed siblings) are bounded by MaxMemory, 64 MiB by
// default; a larger tree fails Ready with ErrTooLarge. Requests
// get what http.ServeContent gives — If-None-Match and If-Modified-Since
// answered 304, ranges 206 — plus a precompressed sibling (name.br,
// name.zst, name.gz) when Accept-Encoding prefers one, and a
// Cache-Control that makes content-hashed names immutable.
//
// As only the files found are routes, no request can name anything
// else: "..", encoded dots and slashes, backslashes and NUL bytes reach
// a 404, and a path no file has goes through the context's not-found
// handling. With Fallback, the plugin becomes that handling: a browser
// navigation (GET or HEAD accepting text/html) to a path no route has
// gets the single-page app's shell, while any other request — and any
// path under the first segment of a route of the API — gets Burrow's
// JSON 404.
package static
