module github.com/burrow-go/burrow/plugins/burrowfx

go 1.26.0

require (
	github.com/burrow-go/burrow v0.0.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/fx v1.24.0
	go.uber.org/zap v1.28.0
)

require (
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.0.0-20220412211240-33da011f77ad // indirect
)

replace github.com/burrow-go/burrow => ../..
