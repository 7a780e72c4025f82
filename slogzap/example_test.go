package slogzap_test

import (
	"log/slog"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/slogzap"
)

// A library taking a *slog.Logger writes to a zap core.
func ExampleNewHandler() {
	enc := zapcore.NewJSONEncoder(zapcore.EncoderConfig{MessageKey: "msg", LevelKey: "level", EncodeLevel: zapcore.LowercaseLevelEncoder})
	core := zapcore.NewCore(enc, zapcore.AddSync(os.Stdout), zapcore.InfoLevel)
	log := slog.New(slogzap.NewHandler(core)).With("service", "todo")
	log.Info("started", slog.Group("http", "port", 8080))
	log.Debug("dropped: below the core's level")
	// Output:
	// {"level":"info","msg":"started","service":"todo","http":{"port":8080}}
}

// Code logging with zap writes to a slog.Handler.
func ExampleNewCore() {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	log := zap.New(slogzap.NewCore(h)).With(zap.String("context", "root"))
	log.Info("request completed", zap.Int("statusCode", 200))
	// Output:
	// level=INFO msg="request completed" context=root statusCode=200
}
