// Package stack is one JSON route behind a production service's
// middleware, built twice: on Burrow with its plugins (cors, secure,
// ratelimit, compress, prometheus) and on chi with the libraries a chi
// service uses for the same work (rs/cors, unrolled/secure,
// go-chi/httprate, klauspost's gzhttp, promhttp's instrumentation).
// The in-process benchmark (bench's BenchmarkFullStack) and the load
// servers (bench/cmd/stack, scripts/stack-bench.sh) both use it.
//
// Every request is a browser's: an allowed Origin and Accept-Encoding
// gzip. Both answers carry the CORS header, the security headers, a
// rate-limit header, about 2 KiB of JSON gzipped at the same level, and
// count one sample in the server's own Prometheus registry.
package stack
