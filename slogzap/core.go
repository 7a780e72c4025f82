package slogzap

import (
	"context"
	"log/slog"
	"slices"

	"go.uber.org/zap/zapcore"
)

// Core is a zapcore.Core writing to a slog.Handler.
type Core struct {
	h slog.Handler
}

// NewCore returns a zapcore.Core writing to h: h decides the level (its
// Enabled), the encoding and where lines go. A logger's name is the
// "logger" attribute, a stack trace the "stacktrace" one, as zap's
// encoders name them.
func NewCore(h slog.Handler) *Core { return &Core{h: h} }

// Enabled reports whether the handler takes records of level l.
func (c *Core) Enabled(l zapcore.Level) bool {
	return c.h.Enabled(context.Background(), slogLevel(l))
}

// With returns a Core whose handler carries fields; a namespace is a
// group of the handler.
func (c *Core) With(fields []zapcore.Field) zapcore.Core {
	if len(fields) == 0 {
		return c
	}
	h := c.h
	for {
		attrs, ns, rest := attrsUntilNamespace(fields)
		if len(attrs) > 0 {
			h = h.WithAttrs(attrs)
		}
		if ns == "" {
			return &Core{h: h}
		}
		h, fields = h.WithGroup(ns), rest
	}
}

// Check adds c to ce when the handler takes ent's level.
func (c *Core) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

// Write hands ent and fields to the handler as one record.
func (c *Core) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	var pc uintptr
	if ent.Caller.Defined {
		pc = ent.Caller.PC
	}
	r := slog.NewRecord(ent.Time, slogLevel(ent.Level), ent.Message, pc)
	if ent.LoggerName != "" {
		r.AddAttrs(slog.String("logger", ent.LoggerName))
	}
	r.AddAttrs(nested(fields)...)
	if ent.Stack != "" {
		r.AddAttrs(slog.String("stacktrace", ent.Stack))
	}
	return c.h.Handle(context.Background(), r)
}

// Sync does nothing: a slog.Handler has no buffer to flush.
func (c *Core) Sync() error { return nil }

// nested is fields as attributes, the fields after a namespace in a
// group named after it.
func nested(fields []zapcore.Field) []slog.Attr {
	attrs, ns, rest := attrsUntilNamespace(fields)
	if ns == "" {
		return attrs
	}
	if inner := nested(rest); len(inner) > 0 {
		attrs = append(attrs, slog.Attr{Key: ns, Value: slog.GroupValue(inner...)})
	}
	return attrs
}

// attrsUntilNamespace turns fields into attributes up to the first
// namespace, and returns that namespace's name and the fields after it.
func attrsUntilNamespace(fields []zapcore.Field) (attrs []slog.Attr, ns string, rest []zapcore.Field) {
	for i, f := range fields {
		switch f.Type {
		case zapcore.NamespaceType:
			return attrs, f.Key, fields[i+1:]
		case zapcore.SkipType:
			continue
		}
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		attrs = append(attrs, attrOf("", enc.Fields).Value.Group()...) // an error may add two keys
	}
	return attrs, "", nil
}

// attrOf is the attribute of a value a zapcore.MapObjectEncoder made: an
// object is a group of its keys, sorted.
func attrOf(key string, v any) slog.Attr {
	m, ok := v.(map[string]any)
	if !ok {
		return slog.Any(key, v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	members := make([]slog.Attr, len(keys))
	for i, k := range keys {
		members[i] = attrOf(k, m[k])
	}
	return slog.Attr{Key: key, Value: slog.GroupValue(members...)}
}
