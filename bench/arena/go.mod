module github.com/burrow-go/burrow/bench/arena

go 1.26.0

replace (
	github.com/burrow-go/burrow => ../..
	github.com/burrow-go/burrow/plugins/compress => ../../plugins/compress
)

require (
	github.com/burrow-go/burrow v0.0.0-00010101000000-000000000000
	github.com/burrow-go/burrow/plugins/compress v0.0.0-00010101000000-000000000000
	github.com/gorilla/websocket v1.5.3
	github.com/redis/go-redis/v9 v9.23.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/zap v1.28.0
	modernc.org/sqlite v1.62.0
)

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)
