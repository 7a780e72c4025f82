package ui_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/example/todo/ui"
	"github.com/burrow-go/burrow/example/todo/ui/internal/build"
)

// dist/ is what src/ builds to: a change to src/ without `go generate`
// fails here, not in a browser.
func TestDistIsBuiltFromSrc(t *testing.T) {
	t.Parallel()
	fresh := t.TempDir()
	require.NoError(t, build.Dir("src", fresh))
	want := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(fresh, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(fresh, p)
		want[filepath.ToSlash(rel)] = b
		return err
	}))
	got := map[string][]byte{}
	require.NoError(t, fs.WalkDir(ui.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(ui.FS(), p)
		got[p] = b
		return err
	}))
	require.Equal(t, len(want), len(got), "run go generate ./ui in example/todo")
	for name, b := range want {
		assert.Equal(t, string(b), string(got[name]), "%s is stale: run go generate ./ui in example/todo", name)
	}
}

// Every asset index.html names is in dist/ under its content's hash.
func TestIndexNamesHashedAssets(t *testing.T) {
	t.Parallel()
	index, err := fs.ReadFile(ui.FS(), "index.html")
	require.NoError(t, err)
	refs := regexp.MustCompile(`"/(assets/[^"]+)"`).FindAllStringSubmatch(string(index), -1)
	require.NotEmpty(t, refs)
	for _, r := range refs {
		b, err := fs.ReadFile(ui.FS(), r[1])
		require.NoError(t, err, r[1])
		assert.Equal(t, build.Hashed(regexp.MustCompile(`\.[0-9a-f]{16}`).ReplaceAllString(filepath.Base(r[1]), ""), b), filepath.Base(r[1]))
	}
}
