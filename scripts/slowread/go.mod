module github.com/burrow-go/burrow/scripts/slowread

go 1.26.0
