// Package testbin finds the external programs tests run (redis-server,
// PostgreSQL, promtool, chromium). Where one is missing the test is
// skipped, with the Debian package that has it, unless the environment
// has CI set: there it fails, so that CI cannot pass by skipping.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing skips tb with msg, or fails it when CI is set.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// LookPath returns the path of the first of names found on PATH or in
// /usr/bin and /usr/sbin (which root's PATH may lack), or calls Missing
// naming pkg.
func LookPath(tb testing.TB, pkg string, names ...string) string {
	tb.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range []string{"/usr/bin", "/usr/sbin"} {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
	}
	Missing(tb, names[0]+" is not installed: apt-get install -y "+pkg)
	return ""
}
