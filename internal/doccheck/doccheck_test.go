package doccheck

import (
	"context"
	"errors"
	"fmt"
	"go/format"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pages yields the Markdown files of docs, by name, with their text.
func pages(t *testing.T) iter.Seq2[string, string] {
	t.Helper()
	dir := root(t)
	files := docs(t, dir)
	return func(yield func(string, string) bool) {
		for _, f := range files {
			md, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			if !yield(f, string(md)) {
				return
			}
		}
	}
}

// root is the main module's directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	return dir
}

// docs lists the Markdown files whose Go blocks must build.
func docs(t *testing.T, dir string) []string {
	t.Helper()
	files := []string{"README.md", "ARCHITECTURE.md", "bench/README.md"}
	more, err := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	require.NoError(t, err)
	for _, m := range more {
		rel, err := filepath.Rel(dir, m)
		require.NoError(t, err)
		files = append(files, rel)
	}
	var out []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// check compiles (go vet) every Go block of the Markdown files, each as
// a package of its own in a temporary directory, whose name starts with
// "_" so that patterns such as ./... never match it, of the module the
// block needs: the main module's (under internal/doccheck/), or that of
// a plugin with dependencies of its own (plugins/compress, …) when the
// block imports one of its packages.
func check(t *testing.T, dir string, files []string) (blocks int, err error) {
	t.Helper()
	goTool, lerr := exec.LookPath("go")
	require.NoError(t, lerr, "the go command is needed to compile the documentation's blocks")
	nested := modules(t, dir)
	type unit struct {
		tmp   string
		pkgs  []string
		mains map[string]string // package → where its block is
	}
	units := map[string]*unit{}
	unitOf := func(mod string) *unit {
		if u := units[mod]; u != nil {
			return u
		}
		base := filepath.Join(dir, "internal", "doccheck")
		if mod != "" {
			base = filepath.Join(dir, mod)
		}
		tmp, terr := os.MkdirTemp(base, "_blocks-")
		require.NoError(t, terr)
		t.Cleanup(func() { _ = os.RemoveAll(tmp) })
		units[mod] = &unit{tmp: tmp, mains: map[string]string{}}
		return units[mod]
	}
	var problems []string
	for _, f := range files {
		md, rerr := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, rerr)
		bs, berr := Blocks(f, string(md))
		if berr != nil {
			problems = append(problems, berr.Error())
			continue
		}
		for _, b := range bs {
			blocks++
			pkg := fmt.Sprintf("b%03d", blocks)
			src, ferr := File(b, pkg, filepath.Join(dir, f))
			if ferr != nil {
				problems = append(problems, ferr.Error())
				continue
			}
			if isFile(b.Code) {
				if formatted, err := format.Source([]byte(b.Code)); err == nil && string(formatted) != b.Code {
					problems = append(problems, fmt.Sprintf("%s:%d: the go block is not gofmt-ed", f, b.Line))
				}
			}
			u := unitOf(moduleOf(src.Text, nested))
			require.NoError(t, os.Mkdir(filepath.Join(u.tmp, pkg), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(u.tmp, pkg, src.Name), []byte(src.Text), 0o600))
			u.pkgs = append(u.pkgs, "./"+pkg)
			if Runs(b.Code) {
				u.mains[pkg] = fmt.Sprintf("%s:%d", f, b.Line)
			}
		}
	}
	for _, u := range units {
		cmd := exec.Command(goTool, append([]string{"vet"}, u.pkgs...)...) // #nosec G204 -- the go tool, with package paths this test made
		cmd.Dir = u.tmp
		if out, cerr := cmd.CombinedOutput(); cerr != nil {
			problems = append(problems, strings.TrimSpace(string(out)))
		} else {
			problems = append(problems, run(t, goTool, u.tmp, u.mains)...)
		}
	}
	if len(problems) > 0 {
		return blocks, errors.New(strings.Join(problems, "\n"))
	}
	return blocks, nil
}

// modules lists the directories, relative to dir, of the modules of their
// own under it (a plugin with third-party dependencies, an example).
func modules(t *testing.T, dir string) []string {
	t.Helper()
	var mods []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != dir {
			rel, err := filepath.Rel(dir, filepath.Dir(p))
			if err != nil {
				return err
			}
			mods = append(mods, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return mods
}

// moduleOf returns the module of its own (one of nested) whose packages
// src imports, the deepest if several; "" for the main module.
func moduleOf(src string, nested []string) string {
	best := ""
	for _, m := range regexp.MustCompile(`"github.com/burrow-go/burrow/([^"]+)"`).FindAllStringSubmatch(src, -1) {
		for _, mod := range nested {
			if (m[1] == mod || strings.HasPrefix(m[1], mod+"/")) && len(mod) > len(best) {
				best = mod
			}
		}
	}
	return best
}

// run builds the blocks that are programs and runs each to its end,
// returning a problem for each that fails.
func run(t *testing.T, goTool, tmp string, mains map[string]string) (problems []string) {
	t.Helper()
	if len(mains) == 0 {
		return nil
	}
	bin := filepath.Join(tmp, "bin")
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for pkg := range mains {
		args = append(args, "./"+pkg)
	}
	build := exec.Command(goTool, args...) // #nosec G204 -- the go tool, with package paths this test made
	build.Dir = tmp
	if out, err := build.CombinedOutput(); err != nil {
		return []string{strings.TrimSpace(string(out))}
	}
	for pkg, where := range mains {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, filepath.Join(bin, pkg)).CombinedOutput() // #nosec G204 -- a program this test built
		cancel()
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: the program fails: %v\n%s", where, err, out))
		}
	}
	return problems
}

func TestDocumentationBlocksBuild(t *testing.T) {
	t.Parallel()
	dir := root(t)
	n, err := check(t, dir, docs(t, dir))
	require.NoError(t, err, "a ```go block of the documentation does not build")
	assert.Positive(t, n)
}

// A block that does not build, and one that is not marked, fail the
// check, each named by its Markdown file and line.
func TestBrokenBlocksFail(t *testing.T) {
	t.Parallel()
	dir := root(t)
	md := "# Broken\n\n<!-- go:fragment -->\n```go\ns := app.New()\ns.Nope()\n```\n\n```go\nx := 1\n```\n"
	f, err := os.CreateTemp(filepath.Join(dir, "internal", "doccheck"), "broken-*.md")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	require.NoError(t, os.WriteFile(f.Name(), []byte(md), 0o600))
	rel, err := filepath.Rel(dir, f.Name())
	require.NoError(t, err)

	_, err = check(t, dir, []string{rel})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Base(f.Name())+":6: s.Nope undefined")
	assert.Contains(t, err.Error(), rel+":9: "+ErrNotMarked.Error())
}

// A program block that builds but fails when it runs fails the check.
func TestFailingProgramFails(t *testing.T) {
	t.Parallel()
	dir := root(t)
	md := "# Fails\n\n```go\npackage main\n\nfunc main() { panic(\"boom\") }\n```\n"
	f, err := os.CreateTemp(filepath.Join(dir, "internal", "doccheck"), "broken-*.md")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	require.NoError(t, os.WriteFile(f.Name(), []byte(md), 0o600))
	rel, err := filepath.Rel(dir, f.Name())
	require.NoError(t, err)

	_, err = check(t, dir, []string{rel})
	require.Error(t, err)
	assert.Contains(t, err.Error(), rel+":4: the program fails")
	assert.Contains(t, err.Error(), "panic: boom")
}

func TestRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		want bool
	}{
		{"package main\n\nfunc main() {}\n", true},
		{"// c\npackage main\n\nfunc main() {}\n", true},
		{"package main\n\nfunc main() { s.Listen(\":80\") }\n", false},
		{"package main\n\nfunc main() { s.Serve(ln) }\n", false},
		{"package main\n\nfunc main() { app.Run(ctx, app.Serving(s, \":80\")) }\n", false},
		{"package lib\n\nfunc main() {}\n", false},
		{"package main\n\nfunc helper() {}\n", false},
		{"s := app.New()\n", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Runs(tt.code), tt.code)
	}
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	md := "text\n```go\npackage main\n```\n" +
		"<!-- go:fragment -->\n```go\nx := 1\n_ = x\n```\n" +
		"````markdown\n```go\nnot a block\n```\n````\n" +
		"```sh\ngo test\n```\n"
	bs, err := Blocks("x.md", md)
	require.NoError(t, err)
	require.Len(t, bs, 2)
	assert.Equal(t, Block{File: "x.md", Line: 3, Code: "package main\n"}, bs[0])
	assert.Equal(t, Block{File: "x.md", Line: 7, Code: "x := 1\n_ = x\n", Fragment: true}, bs[1])

	_, err = Blocks("y.md", "```go\nx\n")
	assert.EqualError(t, err, "y.md:1: the go block is never closed")
}

func TestFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, code string
		fragment   bool
		want       string
		err        string
	}{
		{name: "file", code: "// c\npackage main\n", want: "//line doc.md:2\n// c\npackage main\n"},
		{name: "declarations", code: "var _ = fmt.Sprint(1)\n", fragment: true,
			want: "package p\nimport (\n\t\"fmt\"\n)\n//line doc.md:2\nvar _ = fmt.Sprint(1)\n"},
		{name: "statements", code: "s := app.New()\n_ = s\n", fragment: true,
			want: "package p\nimport (\n\t\"github.com/burrow-go/burrow/app\"\n)\nfunc _() {\n//line doc.md:2\ns := app.New()\n_ = s\n\n}\n"},
		{name: "unmarked", code: "x := 1\n", err: ErrNotMarked.Error()},
		{name: "neither", code: "x := := 1\n", fragment: true, err: "neither declarations nor statements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, err := File(Block{File: "doc.md", Line: 2, Code: tt.code, Fragment: tt.fragment}, "p", "doc.md")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, src.Text)
		})
	}
}

// Every relative link of the documentation names a file that exists and,
// after #, a heading of it (as GitHub spells a heading's anchor).
func TestDocumentationLinks(t *testing.T) {
	t.Parallel()
	dir := root(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	code := regexp.MustCompile("`[^`]*`")
	for _, f := range docs(t, dir) {
		md, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(string(md), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := filepath.Join(dir, filepath.Dir(f), path)
			if path == "" {
				file = filepath.Join(dir, f)
			}
			info, err := os.Stat(file)
			if !assert.NoError(t, err, "%s links to %s", f, target) || anchor == "" {
				continue
			}
			require.False(t, info.IsDir(), "%s links to a directory with an anchor: %s", f, target)
			body, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Contains(t, anchors(string(body)), anchor, "%s links to %s", f, target)
		}
	}
}

// Every page of docs/ is linked from both indexes, README.md and
// docs/README.md: a page no index names is a page no reader finds.
func TestEveryPageIsLinked(t *testing.T) {
	t.Parallel()
	dir := root(t)
	pages, err := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	require.NoError(t, err)
	var names []string
	for _, p := range pages {
		if name := filepath.Base(p); name != "README.md" {
			names = append(names, name)
		}
	}
	require.NotEmpty(t, names)
	for _, index := range []struct{ file, prefix string }{{"README.md", "docs/"}, {"docs/README.md", ""}} {
		md, err := os.ReadFile(filepath.Join(dir, index.file))
		require.NoError(t, err)
		assert.Empty(t, unlinked(string(md), index.prefix, names), "pages of docs/ that %s does not link to", index.file)
	}
}

// TestUnlinked: the check above finds a page an index forgets, and
// counts neither a link inside code nor a page named in plain text.
func TestUnlinked(t *testing.T) {
	t.Parallel()
	names := []string{"a.md", "b.md", "c.md", "d.md"}
	index := "- [A](docs/a.md): one\n- [B](docs/b.md#part)\n`[C](docs/c.md)` and docs/d.md\n"
	assert.Equal(t, []string{"c.md", "d.md"}, unlinked(index, "docs/", names))
	assert.Equal(t, names, unlinked(index, "", names), "links with another prefix")
}

// unlinked returns the names, in order, that no relative link of md
// names as prefix+name (an anchor after it allowed); links inside code
// spans do not count.
func unlinked(md, prefix string, names []string) []string {
	link := regexp.MustCompile(`\]\(([^)\s#]+)(#[^)\s]*)?\)`)
	code := regexp.MustCompile("`[^`]*`")
	linked := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(md, ""), -1) {
		linked[m[1]] = true
	}
	var out []string
	for _, n := range names {
		if !linked[prefix+n] {
			out = append(out, n)
		}
	}
	return out
}

// No paragraph of the documentation repeats the one before it, an
// editing slip a reader trips on.
func TestNoRepeatedParagraph(t *testing.T) {
	t.Parallel()
	for f, md := range pages(t) {
		assert.Empty(t, repeated(md), "%s repeats a paragraph", f)
	}
	assert.Equal(t, []string{"b"}, repeated("a\n\nb\n\nb\n\nc\n\na\n"), "only the one right after its twin")
	assert.Empty(t, repeated("```\n}\n\n}\n```\n"), "code blocks are not prose")
}

// repeated returns the paragraphs of md, outside code fences, that are
// the same as the paragraph before them.
func repeated(md string) []string {
	var out []string
	var prev, cur strings.Builder
	fenced := false
	end := func() {
		if p := cur.String(); p != "" {
			if p == prev.String() {
				out = append(out, strings.TrimSpace(p))
			}
			prev.Reset()
			prev.WriteString(p)
		}
		cur.Reset()
	}
	for line := range strings.Lines(md) {
		if strings.HasPrefix(line, "```") {
			end()
			prev.Reset()
			fenced = !fenced
			continue
		}
		switch {
		case fenced:
		case strings.TrimSpace(line) == "":
			end()
		default:
			cur.WriteString(line)
		}
	}
	end()
	return out
}

// A page that says to go get a plugin's module, which is not published,
// also gives the replace line that makes the go get work meanwhile.
func TestGoGetHasReplace(t *testing.T) {
	t.Parallel()
	for f, md := range pages(t) {
		assert.Empty(t, withoutReplace(md), "%s says go get for these modules without their replace line", f)
	}
	assert.Equal(t, []string{"plugins/b"}, withoutReplace(
		"go get github.com/burrow-go/burrow/plugins/a\ngo get github.com/burrow-go/burrow/plugins/b@latest\n"+
			"go mod edit -replace=github.com/burrow-go/burrow/plugins/a=../burrow/plugins/a\n"))
}

// withoutReplace returns the plugin modules md says to go get and gives
// no -replace for.
func withoutReplace(md string) []string {
	get := regexp.MustCompile(`go get github\.com/burrow-go/burrow/(plugins/[a-z0-9/]+)`)
	var out []string
	for _, m := range get.FindAllStringSubmatch(md, -1) {
		if !strings.Contains(md, "-replace=github.com/burrow-go/burrow/"+m[1]+"=") && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors returns the anchors GitHub gives a Markdown text's headings:
// lower case, spaces as hyphens, punctuation but - and _ dropped.
func anchors(md string) []string {
	var out []string
	fenced := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
