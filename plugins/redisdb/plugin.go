package redisdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/health"
)

// Plugin returns a wrapped plugin that registers client as a service in
// the context it is registered in, as *redis.Client and as
// redis.UniversalClient, with what opts add, and closes it at the end of
// the server's Close, once the requests are drained.
func Plugin(client *redis.Client, opts ...Option) *app.Plugin {
	p := &plugin{}
	for _, o := range opts {
		o(p)
	}
	return app.Wrap(func(s *app.Server) error {
		if client == nil {
			return errors.New("the redisdb plugin needs a *redis.Client, not nil")
		}
		if err := s.Decorate(client, app.As[redis.UniversalClient]()); err != nil {
			return err
		}
		if p.checks != nil {
			ping := func(ctx context.Context) error { return client.Ping(ctx).Err() }
			if err := s.Register(p.checks.Check(p.checkName, ping, p.checkOpts...)); err != nil {
				return err
			}
		}
		if p.tracer != nil {
			if err := redisotel.InstrumentTracing(client, redisotel.WithTracerProvider(p.tracer)); err != nil {
				return fmt.Errorf("tracing the Redis client: %w", err)
			}
		}
		stop := make(chan struct{})
		if p.meters != nil {
			err := redisotel.InstrumentMetrics(client, redisotel.WithMeterProvider(p.meters),
				redisotel.WithPoolName(p.poolName), redisotel.WithCloseChan(stop),
				redisotel.WithSemConvCompliantMetrics(true))
			if err != nil {
				close(stop)
				return fmt.Errorf("measuring the Redis client: %w", err)
			}
		}
		return s.OnClose(func(context.Context) error {
			close(stop)
			if p.keepOpen {
				return nil
			}
			return client.Close()
		})
	}, app.Name("redisdb"))
}

// Option configures the plugin.
type Option func(*plugin)

type plugin struct {
	checks    *health.Checks
	checkName string
	checkOpts []health.CheckOption
	tracer    trace.TracerProvider
	meters    metric.MeterProvider
	poolName  string
	keepOpen  bool
}

// Check adds a readiness check called name to checks: a PING, which
// fails while Redis cannot be reached; opts set its interval and
// time-out.
func Check(checks *health.Checks, name string, opts ...health.CheckOption) Option {
	return func(p *plugin) { p.checks, p.checkName, p.checkOpts = checks, name, opts }
}

// Tracing makes an OpenTelemetry span of each command through tp
// (redisotel): a command of a request is a child of the request's span
// (plugins/otel) when it runs with the request's context.
func Tracing(tp trace.TracerProvider) Option { return func(p *plugin) { p.tracer = tp } }

// Metrics reports the client's commands and connections through mp
// (redisotel), named pool (the pool.name attribute).
func Metrics(mp metric.MeterProvider, pool string) Option {
	return func(p *plugin) { p.meters, p.poolName = mp, pool }
}

// KeepOpen leaves closing the client to the caller.
func KeepOpen() Option { return func(p *plugin) { p.keepOpen = true } }
