package slogzap

import (
	"log/slog"

	"go.uber.org/zap/zapcore"
)

// zapLevel is l rounded down to the zap level at or below it (Debug for
// anything below Info).
func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.ErrorLevel
	case l >= slog.LevelWarn:
		return zapcore.WarnLevel
	case l >= slog.LevelInfo:
		return zapcore.InfoLevel
	default:
		return zapcore.DebugLevel
	}
}

// slogLevel is the slog level of l; those above Error follow slog's
// Error in steps of one.
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError + slog.Level(l-zapcore.ErrorLevel)
	}
}
