package pgxdb

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Tracer returns a pgx tracer that makes an OpenTelemetry span of each
// query, through tp: set it as the pool's ConnConfig.Tracer before the
// pool is made. A query of a request is a child of the request's span
// (plugins/otel) when it runs with the request's context, as the
// request's transaction does.
func Tracer(tp trace.TracerProvider) pgx.QueryTracer {
	return &tracer{t: tp.Tracer("github.com/burrow-go/burrow/plugins/pgxdb")}
}

type tracer struct{ t trace.Tracer }

var system = attribute.String("db.system.name", "postgresql")

func (tr *tracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := operation(data.SQL)
	attrs := []attribute.KeyValue{system, attribute.String("db.query.text", data.SQL)}
	if op != "" {
		attrs = append(attrs, attribute.String("db.operation.name", op))
	}
	if conn != nil {
		cfg := conn.Config()
		attrs = append(attrs, attribute.String("db.namespace", cfg.Database),
			attribute.String("server.address", cfg.Host), attribute.Int("server.port", int(cfg.Port)))
	}
	name := op
	if name == "" {
		name = "postgresql"
	}
	ctx, _ = tr.t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

func (tr *tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if data.Err != nil {
		span.RecordError(data.Err)
		span.SetStatus(codes.Error, data.Err.Error())
	}
	span.End()
}

// operation is the first word of a statement, upper-cased: SELECT,
// INSERT, BEGIN…; empty for one that starts otherwise (a comment).
func operation(sql string) string {
	sql = strings.TrimSpace(sql)
	end := strings.IndexFunc(sql, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '(' || r == ';' })
	if end < 0 {
		end = len(sql)
	}
	word := sql[:end]
	for _, r := range word {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return ""
		}
	}
	return strings.ToUpper(word)
}
