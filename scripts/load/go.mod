module github.com/burrow-go/burrow/scripts/load

go 1.26.0
