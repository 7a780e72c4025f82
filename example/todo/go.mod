module github.com/burrow-go/burrow/example/todo

go 1.26.0

replace github.com/burrow-go/burrow => ../..

replace github.com/burrow-go/burrow/plugins/ratelimit/redisstore => ../../plugins/ratelimit/redisstore

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/burrow-go/burrow v0.0.0
	github.com/burrow-go/burrow/plugins/ratelimit/redisstore v0.0.0-00010101000000-000000000000
	github.com/chromedp/cdproto v0.159.3
	github.com/chromedp/chromedp v0.23.0
	github.com/jackc/pgx/v5 v5.13.0
	github.com/klauspost/compress v1.20.4
	github.com/redis/go-redis/v9 v9.23.0
	github.com/stretchr/testify v1.12.1
	go.opentelemetry.io/proto/otlp v1.11.0
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
	google.golang.org/protobuf v1.36.12
	modernc.org/sqlite v1.62.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cenkalti/backoff/v5 v5.0.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.30.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/grpc v1.83.2 // indirect
)

require (
	github.com/burrow-go/burrow/plugins/compress v0.0.0-00010101000000-000000000000
	github.com/burrow-go/burrow/plugins/otel v0.0.0-00010101000000-000000000000
	github.com/burrow-go/burrow/plugins/prometheus v0.0.0-00010101000000-000000000000
	github.com/burrow-go/burrow/plugins/session/redisstore v0.0.0-00010101000000-000000000000
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

replace github.com/burrow-go/burrow/plugins/compress => ../../plugins/compress

replace github.com/burrow-go/burrow/plugins/session/redisstore => ../../plugins/session/redisstore

replace github.com/burrow-go/burrow/plugins/otel => ../../plugins/otel

replace github.com/burrow-go/burrow/plugins/prometheus => ../../plugins/prometheus

require (
	github.com/burrow-go/burrow/plugins/idempotency v0.0.0-00010101000000-000000000000
	github.com/burrow-go/burrow/plugins/sqldb v0.0.0-00010101000000-000000000000
	go.opentelemetry.io/otel v1.47.0
)

replace github.com/burrow-go/burrow/plugins/idempotency => ../../plugins/idempotency

replace github.com/burrow-go/burrow/plugins/sqldb => ../../plugins/sqldb
