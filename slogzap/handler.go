package slogzap

import (
	"context"
	"log/slog"
	"runtime"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Handler is a slog.Handler writing to a zapcore.Core.
type Handler struct {
	core zapcore.Core
	// groups are the groups opened by WithGroup since the last WithAttrs:
	// they become zap namespaces only once something is logged in them,
	// as slog drops an empty group.
	groups []string
}

// NewHandler returns a slog.Handler writing to core: its level, its
// fields and its encoding apply. A record's zero time is passed on as
// zero (zap's encoders write it as they write any time).
func NewHandler(core zapcore.Core) *Handler { return &Handler{core: core} }

// Enabled reports whether core writes entries of level l.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	return h.core.Enabled(zapLevel(l))
}

// Handle writes r to the core.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	ent := zapcore.Entry{Level: zapLevel(r.Level), Time: r.Time, Message: r.Message}
	ce := h.core.Check(ent, nil)
	if ce == nil {
		return nil
	}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		ce.Caller = zapcore.NewEntryCaller(f.PC, f.File, f.Line, true)
		ce.Caller.Function = f.Function
	}
	fields := make([]zapcore.Field, 0, r.NumAttrs()+len(h.groups))
	r.Attrs(func(a slog.Attr) bool {
		fields = appendAttr(fields, a)
		return true
	})
	ce.Write(h.inGroups(fields)...)
	return nil
}

// WithAttrs returns a Handler whose core carries attrs.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var fields []zapcore.Field
	for _, a := range attrs {
		fields = appendAttr(fields, a)
	}
	if len(fields) == 0 {
		return h
	}
	return &Handler{core: h.core.With(h.inGroups(fields))}
}

// WithGroup returns a Handler that puts what follows in group name.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &Handler{core: h.core, groups: append(h.groups[:len(h.groups):len(h.groups)], name)}
}

// inGroups prefixes fields with a namespace per pending group; none when
// there are no fields, so an empty group leaves no trace.
func (h *Handler) inGroups(fields []zapcore.Field) []zapcore.Field {
	if len(fields) == 0 || len(h.groups) == 0 {
		return fields
	}
	out := make([]zapcore.Field, 0, len(h.groups)+len(fields))
	for _, g := range h.groups {
		out = append(out, zap.Namespace(g))
	}
	return append(out, fields...)
}

// appendAttr appends a's field to fields: none for an empty attribute
// or group, the members of a group without a key.
func appendAttr(fields []zapcore.Field, a slog.Attr) []zapcore.Field {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		var inner []zapcore.Field
		for _, m := range v.Group() {
			inner = appendAttr(inner, m)
		}
		switch {
		case len(inner) == 0:
			return fields
		case a.Key == "":
			return append(fields, inner...)
		}
		return append(fields, zap.Dict(a.Key, inner...))
	case slog.KindString:
		return append(fields, zap.String(a.Key, v.String()))
	case slog.KindInt64:
		return append(fields, zap.Int64(a.Key, v.Int64()))
	case slog.KindUint64:
		return append(fields, zap.Uint64(a.Key, v.Uint64()))
	case slog.KindFloat64:
		return append(fields, zap.Float64(a.Key, v.Float64()))
	case slog.KindBool:
		return append(fields, zap.Bool(a.Key, v.Bool()))
	case slog.KindDuration:
		return append(fields, zap.Duration(a.Key, v.Duration()))
	case slog.KindTime:
		return append(fields, zap.Time(a.Key, v.Time()))
	}
	if a.Key == "" && v.Any() == nil {
		return fields // the empty Attr
	}
	if err, ok := v.Any().(error); ok {
		return append(fields, zap.NamedError(a.Key, err))
	}
	return append(fields, zap.Any(a.Key, v.Any()))
}
