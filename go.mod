module github.com/burrow-go/burrow

go 1.24

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
)
