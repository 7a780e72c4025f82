// Package oidctest starts a real OpenID Provider for tests: the provider
// of github.com/zitadel/oidc in plugins/jwt/internal/oidcop (a module of
// its own), built with go build into a directory of the test's and run
// on a free loopback port until the test ends.
package oidctest

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start builds and starts the provider with args (see oidcop's flags:
// -audience, -web-client, -redirect-uris, -post-logout-uris) and returns
// its issuer URL, which ends in a slash. The provider is killed when tb
// ends, and its log shown if tb failed. Never skipped: a provider that
// does not build or start is a failure.
func Start(tb testing.TB, args ...string) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("oidctest: cannot find the provider's source")
	}
	bin := filepath.Join(tb.TempDir(), "oidcop")
	build := exec.Command("go", "build", "-o", bin, ".") // #nosec G204 -- the go tool, into a directory of the test's
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..", "plugins", "jwt", "internal", "oidcop")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("oidctest: building the OpenID Provider: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...) // #nosec G204 -- the program built above, with the test's flags
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatalf("oidctest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("oidctest: starting the OpenID Provider: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if tb.Failed() {
			tb.Logf("the OpenID Provider's log:\n%s", stderr.String())
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case issuer := <-line:
		if issuer == "" {
			tb.Fatalf("oidctest: the OpenID Provider exited: %s", stderr.String())
		}
		return issuer
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
		tb.Fatalf("oidctest: the OpenID Provider did not start: %s", stderr.String())
	}
	return ""
}

// lockedBuffer is the provider's log, written by os/exec's copying
// goroutine while a failing test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
