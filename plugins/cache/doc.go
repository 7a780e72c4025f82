// Package cache keeps a context's public GET answers in a store and
// serves them again, as a shared cache in front of the handlers would:
// the plugin is wrapped, and registered in a context it adds a
// middleware there that answers a GET from the store when it holds the
// answer, and stores the answers it lets through when they say they may
// be kept.
//
// An answer is stored only when all of these hold: it is a 200 to a GET;
// its Cache-Control says public and gives s-maxage or max-age above
// zero (app.CacheControl("public, max-age=60") on the route), which is
// how long it is kept, and says neither private, no-store nor no-cache;
// its Vary is not "*"; it sets no cookie; it is not streamed (flushed)
// and its body is no larger than MaxBody (1 MiB); and the request carried
// no credentials — no Authorization and no Cookie header — unless the
// route has the config value [Shared] (app.WithConfig(cache.Shared{})),
// which says its answer is the same for every caller. An answer that
// sets a cookie is never stored.
//
// Entries are keyed by the route's pattern, the request's host, path and
// query, and the values of the request headers the answer's Vary names
// (Accept-Encoding when compression varies it), so two callers share an
// entry only when the handler would have given both the same answer. A
// stored answer is sent with its headers, an Age header, and 304 to a
// GET whose If-None-Match holds its ETag. A request with Cache-Control
// no-cache or no-store skips the lookup (and refreshes the entry).
//
// The store is [NewMemory] (bounded in entries and bytes, per process)
// or, to share entries between instances, the Redis store in the module
// plugins/cache/redisstore. A store that fails is logged and the request
// served by the handler: a cache is never why a request fails.
package cache
