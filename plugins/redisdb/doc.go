// Package redisdb makes a go-redis v9 client a plugin: the client is a
// service of the context the plugin is registered in (as *redis.Client
// and as redis.UniversalClient), Check adds a readiness check, Tracing
// and Metrics instrument it with OpenTelemetry (redisotel), and the
// client is closed once the server has drained.
//
// The package is called redisdb, not redis, so that it does not shadow
// go-redis's package in the files that use both.
package redisdb
