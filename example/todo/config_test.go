package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTodo runs the built command with env and args until it exits, and
// returns its status, stdout and stderr.
func runTodo(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String(), stderr.String()
}

// TestConfiguration is the command's configuration seen from outside: the
// variables TODO_<NAME>, every invalid value on a line with its rule and
// exit status 2 before listening, and -print-config with its secrets
// redacted.
func TestConfiguration(t *testing.T) {
	t.Parallel()
	bin := buildTodo(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { taken.Close() })
	port := taken.Addr().(*net.TCPAddr).Port

	t.Run("every invalid value", func(t *testing.T) {
		t.Parallel()
		status, stdout, stderr := runTodo(t, bin, []string{"TODO_RATE_LIMIT=abc", "TODO_RATE_LIMIT_IP=0"},
			"-port", "0", "-cors-origins", "not-an-origin", "-jwt-issuer", "https://id.example", "-drain", "-1s")
		assert.Equal(t, 2, status, stderr)
		assert.Empty(t, stdout)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		require.Len(t, lines, 6, stderr)
		assert.Equal(t, "todo: invalid configuration:", lines[0])
		for i, want := range []string{"TODO_RATE_LIMIT must be integer (rule type)", "TODO_RATE_LIMIT_IP must be >= 1 (rule min)",
			"-drain must be >= 0 (rule min)", `-cors-origins item 1, "not-an-origin", is not an origin: want scheme://host[:port], as https://app.example (rule type)`,
			"-jwt-issuer needs -jwt-audience (or TODO_JWT_AUDIENCE) as well (rule requires)"} {
			assert.Contains(t, lines[1:], "\t"+want, "line %d", i)
		}
		assert.NotContains(t, stderr, "server listening", "nothing listened")
	})
	t.Run("a flag's value", func(t *testing.T) {
		t.Parallel()
		status, _, stderr := runTodo(t, bin, nil, "-port", "0", "-rate-limit", "0")
		assert.Equal(t, 2, status)
		assert.Equal(t, "todo: invalid configuration:\n\t-rate-limit must be >= 1 (rule min)\n", stderr)
	})
	t.Run("a port in use", func(t *testing.T) {
		t.Parallel()
		status, _, stderr := runTodo(t, bin, []string{"TODO_PORT=" + strconv.Itoa(port)})
		assert.Equal(t, 1, status)
		assert.Contains(t, stderr, "address already in use")
	})
	t.Run("stores that cannot be reached", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"-db", "postgres://todo:dbpass@127.0.0.1:1/todo"}, {"-redis", "redis://:redispass@127.0.0.1:1/0"}} {
			status, _, stderr := runTodo(t, bin, []string{"TODO_USERS=alice:tokenA"}, append([]string{"-port", "0"}, args...)...)
			assert.Equal(t, 1, status, stderr)
			for _, secret := range []string{"dbpass", "redispass", "tokenA"} {
				assert.NotContains(t, stderr, secret, "no log line carries a secret")
			}
		}
	})
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		status, _, stderr := runTodo(t, bin, nil, "-h")
		assert.Equal(t, 0, status)
		assert.Contains(t, stderr, "-rate-limit value")
		assert.Contains(t, stderr, "(env TODO_RATE_LIMIT) (default 600)")
	})
	t.Run("print-config", func(t *testing.T) {
		t.Parallel()
		secret := filepath.Join(t.TempDir(), "secret")
		require.NoError(t, os.WriteFile(secret, []byte("client-s3cret\n"), 0o600))
		status, stdout, stderr := runTodo(t, bin, []string{"TODO_USERS=alice:tokenA,bob:tokenB", "TODO_RATE_LIMIT=42",
			"TODO_OIDC_CLIENT_SECRET_FILE=" + secret, "TODO_DB=postgres://todo:dbpass@127.0.0.1:1/todo"},
			"-print-config", "-redis", "redis://:redispass@127.0.0.1:1/0", "-rate-limit", "43", "-drain", "2s",
			"-oidc-issuer", "https://id.example", "-oidc-client-id", "todo", "-public-url", "https://todo.example")
		require.Equal(t, 0, status, stderr)
		for _, secret := range []string{"tokenA", "tokenB", "client-s3cret", "dbpass", "redispass"} {
			assert.NotContains(t, stdout+stderr, secret)
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
		assert.Equal(t, "[redacted]", got["oidc-client-secret"])
		assert.Equal(t, "alice:[redacted],bob:[redacted]", got["users"])
		assert.Equal(t, "postgres://todo:[redacted]@127.0.0.1:1/todo", got["db"])
		assert.Equal(t, "redis://:[redacted]@127.0.0.1:1/0", got["redis"])
		assert.Equal(t, 43.0, got["rate-limit"], "the flag wins")
		assert.Equal(t, "2s", got["drain"])
		var keys []string
		st := reflect.TypeFor[settings]()
		for i := range st.NumField() {
			keys = append(keys, st.Field(i).Tag.Get("flag"))
		}
		for _, k := range keys {
			assert.Contains(t, got, k, "every flag is a key")
		}
		assert.Len(t, got, len(keys))
	})
}
