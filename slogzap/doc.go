// Package slogzap joins log/slog and zap, in both directions, so that one
// stream of log lines serves code written for either.
//
// NewHandler is a slog.Handler writing to a zapcore.Core: libraries that
// take a *slog.Logger log through Burrow's zap logger, with its fields
// (a context's path, a request's id). NewCore is a zapcore.Core writing
// to a slog.Handler: Burrow, which logs with zap, then logs to a handler
// the application chose (app.WithSlogHandler). Both pass the conformance
// tests of testing/slogtest.
//
// Levels map by their meaning: slog's Debug, Info, Warn and Error are
// zap's; a slog level between two is rounded down to zap's level below,
// and zap's DPanic, Panic and Fatal are slog's Error+1, +2 and +3. A slog
// group is a zap namespace or zap.Dict, and back.
package slogzap
