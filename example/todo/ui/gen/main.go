// Command gen builds the page's dist/ from src/: go run ./gen SRC DST.
package main

import (
	"fmt"
	"os"

	"github.com/burrow-go/burrow/example/todo/ui/internal/build"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen SRC DST")
		os.Exit(2)
	}
	if err := build.Dir(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
