package slogzap_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/slogzap"
)

// TestHandlerConforms runs slogtest on a Handler over a core recording
// its entries: each entry is read back as slogtest's map, the entry's
// time, level and message under slog's keys, its fields (namespaces as
// nested maps) beside them.
func TestHandlerConforms(t *testing.T) {
	t.Parallel()
	var logs *observer.ObservedLogs
	slogtest.Run(t, func(*testing.T) slog.Handler {
		var core zapcore.Core
		core, logs = observer.New(zapcore.DebugLevel)
		return slogzap.NewHandler(core)
	}, func(t *testing.T) map[string]any {
		entries := logs.AllUntimed()
		all := logs.All()
		require.Len(t, entries, 1)
		m := entries[0].ContextMap()
		if tm := all[0].Time; !tm.IsZero() {
			m[slog.TimeKey] = tm
		}
		m[slog.LevelKey] = entries[0].Level.String()
		m[slog.MessageKey] = entries[0].Message
		return m
	})
}

// TestRoundTripConforms runs slogtest on slog → zap → slog: a Handler
// over a Core over slog's JSONHandler, which is what a library logging
// with slog into Burrow writes when Burrow logs to a slog.Handler.
func TestRoundTripConforms(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	slogtest.Run(t, func(*testing.T) slog.Handler {
		buf.Reset()
		return slogzap.NewHandler(slogzap.NewCore(slog.NewJSONHandler(&buf, nil)))
	}, func(t *testing.T) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(buf.Bytes(), &m), buf.String())
		return m
	})
}

// TestCoreWritesZapFields: what zap's own API writes reaches the
// handler as slog would have written it.
func TestCoreWritesZapFields(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	})
	log := zap.New(slogzap.NewCore(h)).Named("svc").With(zap.String("context", "root"), zap.Namespace("req"), zap.String("reqId", "r1"))
	log.Warn("slow", zap.Int("n", 3), zap.Duration("d", 1500*time.Millisecond), zap.Error(errors.New("boom")),
		zap.Dict("db", zap.String("table", "todos"), zap.Bool("hit", true)))
	assert.JSONEq(t, `{"level":"WARN","msg":"slow","context":"root","req":{"reqId":"r1",
		"logger":"svc","n":3,"d":1500000000,"error":"boom","db":{"hit":true,"table":"todos"}}}`, buf.String())

	buf.Reset()
	log.Debug("quiet")
	assert.Contains(t, buf.String(), `"level":"DEBUG"`)
	buf.Reset()
	zap.New(slogzap.NewCore(slog.NewJSONHandler(&buf, nil))).Debug("dropped")
	assert.Empty(t, buf.String(), "the handler's level decides")
}

func TestLevels(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	log := slog.New(slogzap.NewHandler(core))
	for _, l := range []slog.Level{slog.LevelDebug - 2, slog.LevelDebug, slog.LevelInfo, slog.LevelInfo + 1, slog.LevelWarn, slog.LevelError, slog.LevelError + 4} {
		log.Log(t.Context(), l, "x")
	}
	var got []zapcore.Level
	for _, e := range logs.All() {
		got = append(got, e.Level)
	}
	assert.Equal(t, []zapcore.Level{zapcore.DebugLevel, zapcore.DebugLevel, zapcore.InfoLevel, zapcore.InfoLevel,
		zapcore.WarnLevel, zapcore.ErrorLevel, zapcore.ErrorLevel}, got)

	var buf bytes.Buffer
	zl := zap.New(slogzap.NewCore(slog.NewTextHandler(&buf, nil)))
	zl.DPanic("x")
	assert.Contains(t, buf.String(), "level=ERROR+1")
}
