module github.com/burrow-go/burrow/plugins/websocket

go 1.26.0

require (
	github.com/burrow-go/burrow v0.0.0-00010101000000-000000000000
	github.com/coder/websocket v1.8.15
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
)

require (
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/burrow-go/burrow => ../..
