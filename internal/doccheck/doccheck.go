// Package doccheck turns the Go code blocks of Markdown files into Go
// files, so that a test can compile every block the documentation shows.
//
// A ```go block is one of two things:
//
//   - a complete file: its first line that is not a comment starts with
//     "package". It is compiled as is, in a package of its own, and the
//     test also wants it gofmt-ed;
//   - a fragment: the line right before its fence is
//     <!-- go:fragment -->. It is compiled as top-level declarations when
//     it parses as such, and otherwise as the statements of a function
//     body. The imports it needs are added from its unresolved package
//     names (see [Imports]).
//
// Any other ```go block is an error: a block that claims to be Go must
// build. A complete file that is a command and serves no socket (see
// [Runs]) must also run to its end. Code that is not Go goes in a block of its own language (```sh,
// ```text, ```json).
package doccheck

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// FragmentMarker is the line that marks the next ```go block as a fragment.
const FragmentMarker = "<!-- go:fragment -->"

// Block is one ```go block of a Markdown file.
type Block struct {
	File     string // the Markdown file, as given to [Blocks]
	Line     int    // the line of the block's first code line, from 1
	Code     string
	Fragment bool // marked with FragmentMarker
}

// Blocks returns the ```go blocks of a Markdown text. An unclosed block is
// an error.
func Blocks(file, markdown string) ([]Block, error) {
	var (
		out      []Block
		cur      *Block
		code     strings.Builder
		prev     string
		fence    string
		lineNo   int
		scanner  = bufio.NewScanner(strings.NewReader(markdown))
		inOther  bool
		otherEnd string
	)
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		lineNo++
		line := scanner.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil:
			if trimmed == fence {
				cur.Code = code.String()
				out = append(out, *cur)
				cur = nil
			} else {
				code.WriteString(line)
				code.WriteByte('\n')
			}
		case inOther:
			if trimmed == otherEnd {
				inOther = false
			}
		case strings.HasPrefix(trimmed, "```"):
			f := fenceOf(trimmed)
			if strings.TrimSpace(trimmed[len(f):]) == "go" {
				cur = &Block{File: file, Line: lineNo + 1, Fragment: strings.TrimSpace(prev) == FragmentMarker}
				fence = f
				code.Reset()
			} else {
				inOther, otherEnd = true, f
			}
		}
		prev = line
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the go block is never closed", file, cur.Line-1)
	}
	return out, nil
}

func fenceOf(line string) string {
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	return line[:n]
}

// Source is a block as a Go file: its name (a _test.go name when the
// block holds tests) and its text, with //line directives that point
// compiler messages at the Markdown file.
type Source struct {
	Name string
	Text string
}

// ErrNotMarked is the error of a ```go block that neither starts with a
// package clause nor is marked as a fragment.
var ErrNotMarked = errors.New("go block is neither a file (package …) nor marked " + FragmentMarker)

// File returns the Go file a block is compiled as, in package pkg when it
// is a fragment. path is how //line directives name the Markdown file.
func File(b Block, pkg, path string) (Source, error) {
	where := "//line " + path + ":" + strconv.Itoa(b.Line) + "\n"
	name := "block.go"
	if strings.Contains(b.Code, "*testing.T") || strings.Contains(b.Code, "*testing.M") {
		name = "block_test.go"
	}
	if isFile(b.Code) {
		return Source{Name: name, Text: where + b.Code}, nil
	}
	if !b.Fragment {
		return Source{}, fmt.Errorf("%s:%d: %w", b.File, b.Line-1, ErrNotMarked)
	}
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", "package "+pkg+"\n"+b.Code, 0); err == nil {
		return Source{Name: name, Text: "package " + pkg + "\n" + imports(f) + where + b.Code}, nil
	}
	body := "package " + pkg + "\nfunc _() {\n"
	f, err := parser.ParseFile(fset, "", body+b.Code+"\n}\n", 0)
	if err != nil {
		return Source{}, fmt.Errorf("%s:%d: the fragment is neither declarations nor statements: %w", b.File, b.Line, err)
	}
	return Source{Name: name, Text: "package " + pkg + "\n" + imports(f) + "func _() {\n" + where + b.Code + "\n}\n"}, nil
}

// Runs reports whether a block is a program that runs to its end by
// itself: a complete file of package main, with a main function, that
// does not Listen or Serve, nor Run an fx application or app.Run a
// service (those serve until they are stopped).
func Runs(code string) bool {
	if !isFile(code) || !strings.Contains(code, "\npackage main\n") && !strings.HasPrefix(code, "package main\n") {
		return false
	}
	return strings.Contains(code, "\nfunc main() {") &&
		!strings.Contains(code, ".Listen(") && !strings.Contains(code, ".ListenTLS(") && !strings.Contains(code, ".Serve(") &&
		!strings.Contains(code, ").Run()") && !strings.Contains(code, "app.Run(")
}

// isFile reports whether code's first line that is not blank or a comment
// is a package clause.
func isFile(code string) bool {
	for line := range strings.Lines(code) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		return strings.HasPrefix(t, "package ")
	}
	return false
}

// Imports maps the package names a fragment may use without importing
// them to their import paths.
var Imports = map[string]string{ // #nosec G101 -- package names and import paths ("bearer" is one), no credential
	"app":         "github.com/burrow-go/burrow/app",
	"apptest":     "github.com/burrow-go/burrow/app/apptest",
	"config":      "github.com/burrow-go/burrow/app/config",
	"openapi":     "github.com/burrow-go/burrow/app/openapi",
	"bearer":      "github.com/burrow-go/burrow/bearer",
	"httpx":       "github.com/burrow-go/burrow/httpx",
	"scope":       "github.com/burrow-go/burrow/scope",
	"slogzap":     "github.com/burrow-go/burrow/slogzap",
	"prometheus":  "github.com/burrow-go/burrow/plugins/prometheus",
	"otel":        "github.com/burrow-go/burrow/plugins/otel",
	"burrowfx":    "github.com/burrow-go/burrow/plugins/burrowfx",
	"compress":    "github.com/burrow-go/burrow/plugins/compress",
	"cookie":      "github.com/burrow-go/burrow/plugins/cookie",
	"cors":        "github.com/burrow-go/burrow/plugins/cors",
	"csrf":        "github.com/burrow-go/burrow/plugins/csrf",
	"health":      "github.com/burrow-go/burrow/plugins/health",
	"ratelimit":   "github.com/burrow-go/burrow/plugins/ratelimit",
	"secure":      "github.com/burrow-go/burrow/plugins/secure",
	"session":     "github.com/burrow-go/burrow/plugins/session",
	"sessiontest": "github.com/burrow-go/burrow/plugins/session/sessiontest",
	"shed":        "github.com/burrow-go/burrow/plugins/shed",
	"static":      "github.com/burrow-go/burrow/plugins/static",
	"jwt":         "github.com/burrow-go/burrow/plugins/jwt",
	"dig":         "go.uber.org/dig",
	"zap":         "go.uber.org/zap",
	"zapcore":     "go.uber.org/zap/zapcore",
	"assert":      "github.com/stretchr/testify/assert",
	"require":     "github.com/stretchr/testify/require",
	"bufio":       "bufio",
	"bytes":       "bytes",
	"context":     "context",
	"errors":      "errors",
	"expvar":      "expvar",
	"fmt":         "fmt",
	"http":        "net/http",
	"httptest":    "net/http/httptest",
	"io":          "io",
	"json":        "encoding/json",
	"log":         "log",
	"net":         "net",
	"netip":       "net/netip",
	"fs":          "io/fs",
	"os":          "os",
	"signal":      "os/signal",
	"slog":        "log/slog",
	"sql":         "database/sql",
	"strconv":     "strconv",
	"strings":     "strings",
	"sync":        "sync",
	"syscall":     "syscall",
	"testing":     "testing",
	"time":        "time",
	"tls":         "crypto/tls",
}

// imports returns the import declaration for the known package names f
// uses without declaring them.
func imports(f *ast.File) string {
	var paths []string
	for _, id := range f.Unresolved {
		if p, ok := Imports[id.Name]; ok && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return ""
	}
	slices.Sort(paths)
	var b strings.Builder
	b.WriteString("import (\n")
	for _, p := range paths {
		b.WriteString("\t" + strconv.Quote(p) + "\n")
	}
	b.WriteString(")\n")
	return b.String()
}
