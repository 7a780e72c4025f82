package config_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/config"
)

// origin is a web origin, read with its own rule.
type origin string

func (o *origin) UnmarshalText(b []byte) error {
	s := string(b)
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") || strings.Count(s, "/") != 2 {
		return errors.New("must be an origin, as https://app.example")
	}
	*o = origin(s)
	return nil
}

type service struct {
	Port      int           `flag:"port" env:"PORT" default:"8080" validate:"min=0,max=65535" usage:"port to listen on"`
	Host      string        `flag:"host" default:"127.0.0.1"`
	RateLimit int           `flag:"rate-limit" default:"600" validate:"min=1"`
	Drain     time.Duration `flag:"drain" validate:"min=0"`
	Origins   []origin      `flag:"cors-origins" validate:"max=3"`
	Debug     bool          `flag:"debug"`
	DB        config.URL    `flag:"db"`
	Token     config.Secret `flag:"token" default:"dev-token-default" validate:"min=8"`
	Issuer    string        `flag:"jwt-issuer" requires:"jwt-audience, Region"`
	Audience  string        `flag:"jwt-audience"`
	Region    string        `env:"REGION" validate:"enum=eu|us"`
}

// env makes a getenv of pairs.
func env(pairs ...string) config.Option {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return config.Getenv(func(k string) string { return m[k] })
}

func load(t *testing.T, args []string, opts ...config.Option) (service, error) {
	t.Helper()
	var c service
	err := config.Load(&c, append([]config.Option{config.Args(args), config.EnvPrefix("TODO_"), env()}, opts...)...)
	return c, err
}

func TestSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(secretFile, []byte("from-a-file\n"), 0o600))
	defaults := service{Port: 8080, Host: "127.0.0.1", RateLimit: 600, Token: "dev-token-default"}
	tests := []struct {
		name string
		args []string
		env  []string
		want func(*service)
	}{
		{name: "defaults", want: func(*service) {}},
		{name: "flags", args: []string{"-port", "9000", "-rate-limit=5", "-drain", "1s500ms", "-debug", "-cors-origins", "https://a.example, https://b.example,"},
			want: func(c *service) {
				c.Port, c.RateLimit, c.Drain, c.Debug = 9000, 5, 1500*time.Millisecond, true
				c.Origins = []origin{"https://a.example", "https://b.example"}
			}},
		{name: "the derived variable", env: []string{"TODO_RATE_LIMIT", "7", "TODO_DEBUG", "true", "TODO_JWT_ISSUER", "i", "TODO_JWT_AUDIENCE", "a", "REGION", "us"},
			want: func(c *service) { c.RateLimit, c.Debug, c.Issuer, c.Audience, c.Region = 7, true, "i", "a", "us" }},
		{name: "the env tag, after the derived one", env: []string{"PORT", "9001"}, want: func(c *service) { c.Port = 9001 }},
		{name: "the derived one first", env: []string{"PORT", "9001", "TODO_PORT", "9002"}, want: func(c *service) { c.Port = 9002 }},
		{name: "a flag wins", args: []string{"-port", "9003"}, env: []string{"TODO_PORT", "9002"}, want: func(c *service) { c.Port = 9003 }},
		{name: "an empty variable is unset", env: []string{"TODO_PORT", "", "PORT", "9004"}, want: func(c *service) { c.Port = 9004 }},
		{name: "a file", env: []string{"TODO_TOKEN_FILE", secretFile}, want: func(c *service) { c.Token = "from-a-file" }},
		{name: "a variable only", env: []string{"REGION", "eu"}, want: func(c *service) { c.Region = "eu" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := load(t, tc.args, env(tc.env...))
			require.NoError(t, err)
			want := defaults
			tc.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

// TestEveryInvalidValue: one Load reports every invalid value, each named
// by where it came from with its rule, in field order; never the value.
func TestEveryInvalidValue(t *testing.T) {
	t.Parallel()
	_, err := load(t, []string{"-port", "70000", "-cors-origins", "https://a.example,not-an-origin", "-jwt-issuer", "https://id.example",
		"-token", "short", "-drain", "soon"},
		env("TODO_RATE_LIMIT", "abc", "REGION", "mars"))
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []config.Invalid{
		{Name: "-port", Rule: "max", Message: "must be <= 65535"},
		{Name: "TODO_RATE_LIMIT", Rule: "type", Message: "must be integer"},
		{Name: "-drain", Rule: "type", Message: "must be a duration, as 1s, 500ms or 1m30s"},
		{Name: "-cors-origins", Rule: "type", Message: "item 2: must be an origin, as https://app.example"},
		{Name: "-token", Rule: "min", Message: "must NOT have fewer than 8 characters"},
		{Name: "-jwt-issuer", Rule: "requires", Message: "needs -jwt-audience (or TODO_JWT_AUDIENCE) as well"},
		{Name: "REGION", Rule: "enum", Message: "must be equal to one of the allowed values: eu, us"},
	}, ce.Invalid)
	assert.Equal(t, `invalid configuration:
	-port must be <= 65535 (rule max)
	TODO_RATE_LIMIT must be integer (rule type)
	-drain must be a duration, as 1s, 500ms or 1m30s (rule type)
	-cors-origins item 2: must be an origin, as https://app.example (rule type)
	-token must NOT have fewer than 8 characters (rule min)
	-jwt-issuer needs -jwt-audience (or TODO_JWT_AUDIENCE) as well (rule requires)
	REGION must be equal to one of the allowed values: eu, us (rule enum)`, err.Error())
	assert.NotContains(t, err.Error(), "short", "a secret's value is never repeated")
	assert.Equal(t, 2, ce.ExitCode())
}

func TestRequired(t *testing.T) {
	t.Parallel()
	type needs struct {
		Key  config.Secret `flag:"key" validate:"required"`
		Zone string        `env:"ZONE" validate:"required"`
	}
	err := config.Load(&needs{}, config.Args(nil), config.EnvPrefix("APP_"), env())
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []config.Invalid{
		{Name: "-key (or APP_KEY)", Rule: "required", Message: "is required"},
		{Name: "ZONE", Rule: "required", Message: "is required"},
	}, ce.Invalid)
}

func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("x"), 64<<10+1), 0o600))
	crlf := filepath.Join(dir, "crlf")
	require.NoError(t, os.WriteFile(crlf, []byte("s3cret-value\r\n"), 0o600))

	c, err := load(t, nil, env("TODO_TOKEN_FILE", crlf))
	require.NoError(t, err)
	assert.Equal(t, config.Secret("s3cret-value"), c.Token, "one line ending is trimmed")

	_, err = load(t, nil, env("TODO_TOKEN_FILE", filepath.Join(dir, "missing"), "TODO_HOST", "h", "TODO_HOST_FILE", crlf,
		"TODO_DB_FILE", big))
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Invalid, 3)
	assert.Equal(t, config.Invalid{Name: "TODO_HOST", Rule: "source", Message: "is set and so is TODO_HOST_FILE: set one of them"}, ce.Invalid[0])
	assert.Equal(t, "TODO_DB_FILE", ce.Invalid[1].Name)
	assert.Equal(t, "file", ce.Invalid[1].Rule)
	assert.Contains(t, ce.Invalid[1].Message, "is larger than 64 KiB")
	assert.Equal(t, "TODO_TOKEN_FILE", ce.Invalid[2].Name)
	assert.Contains(t, ce.Invalid[2].Message, "no such file")
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-keys", "k"}, "flag provided but not defined: -keys (rule syntax)"},
		{[]string{"serve"}, `unexpected argument "serve" (rule syntax)`},
		{[]string{"-port"}, "flag needs an argument: -port (rule syntax)"},
	} {
		_, err := load(t, tc.args)
		var ce *config.Error
		require.ErrorAs(t, err, &ce, "%v", tc.args)
		require.Len(t, ce.Invalid, 1)
		assert.Equal(t, tc.want, ce.Invalid[0].String())
	}

	var usage bytes.Buffer
	_, err := load(t, []string{"-h"}, config.Output(&usage))
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, usage.String(), "port to listen on (env TODO_PORT, PORT)")
	assert.Contains(t, usage.String(), "(default 8080)")
	assert.NotContains(t, usage.String(), "dev-token-default", "a secret's default is not shown")

	fs := flag.NewFlagSet("todo", flag.ContinueOnError)
	openapi := fs.Bool("openapi", false, "print the document")
	c, err := load(t, []string{"-openapi", "-port", "1"}, config.FlagSet(fs))
	require.NoError(t, err)
	assert.True(t, *openapi, "the program's own flag")
	assert.Equal(t, 1, c.Port)
}

func TestTagsThatCannotApply(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg  any
		want string
	}{
		"no source": {&struct{ A string }{}, "has neither a flag nor an env tag"},
		"a dash": {&struct {
			A string `flag:"-a"`
		}{}, "name the flag without a dash"},
		"a slash": {&struct {
			A string `flag:"a/b"`
		}{}, "holds no =, /, ~, comma or space"},
		"twice": {&struct {
			A string `flag:"a"`
			B string `flag:"a"`
		}{}, "flag -a is given to two fields"},
		"a default that does not convert": {&struct {
			N int `flag:"n" default:"many"`
		}{}, `default "many": must be integer`},
		"an unknown rule": {&struct {
			N int `flag:"n" validate:"gt=1"`
		}{}, `unknown rule "gt"`},
		"requires nothing": {&struct {
			N int `flag:"n" requires:"m"`
		}{}, `requires:"m" names no other field`},
		"a type": {&struct {
			M map[string]string `flag:"m"`
		}{}, "cannot read map[string]string from text"},
		"not a pointer": {struct {
			A string `flag:"a"`
		}{}, "needs a pointer to a struct"},
	} {
		err := config.Load(tc.cfg, config.Args(nil), env())
		require.Error(t, err, name)
		var ce *config.Error
		assert.False(t, errors.As(err, &ce), "%s: the program's mistake, not the user's", name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

func TestDump(t *testing.T) {
	t.Parallel()
	c, err := load(t, []string{"-db", "postgres://app:hunter2@db.example/todo?sslmode=require", "-token", "sekrit-token",
		"-drain", "90s", "-cors-origins", "https://a.example"}, env("REGION", "us"))
	require.NoError(t, err)
	out, err := config.Dump(&c)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "hunter2")
	assert.NotContains(t, string(out), "sekrit-token")
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, map[string]any{
		"port": 8080.0, "host": "127.0.0.1", "rate-limit": 600.0, "drain": "1m30s", "cors-origins": []any{"https://a.example"},
		"debug": false, "db": "postgres://app:[redacted]@db.example/todo?sslmode=require", "token": "[redacted]",
		"jwt-issuer": "", "jwt-audience": "", "REGION": "us",
	}, got)
	assert.True(t, strings.HasPrefix(string(out), "{\n  \"port\": 8080,\n  \"host\""), "in field order:\n%s", out)

	empty, err := config.Dump(service{})
	require.NoError(t, err)
	assert.Contains(t, string(empty), `"cors-origins": []`, "a list not given is empty, not null")
}

func TestTypes(t *testing.T) {
	t.Parallel()
	type kinds struct {
		U     uint16    `flag:"u"`
		F     float64   `flag:"f"`
		B     bool      `flag:"b"`
		Ns    []int     `flag:"ns"`
		Ratio float32   `flag:"ratio" default:"0.5"`
		Ds    []float64 `flag:"ds"`
	}
	var k kinds
	require.NoError(t, config.Load(&k, config.Args([]string{"-u", "65535", "-f", "1e3", "-b=false", "-ns", "1, 2,,3"}), env()))
	assert.Equal(t, kinds{U: 65535, F: 1000, Ns: []int{1, 2, 3}, Ratio: 0.5}, k)

	err := config.Load(&kinds{}, config.Args([]string{"-u", "65536", "-f", "x", "-b=maybe", "-ns", "1,two", "-ratio", ""}), env())
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []config.Invalid{
		{Name: "-u", Rule: "type", Message: "must be a non-negative integer"},
		{Name: "-f", Rule: "type", Message: "must be number"},
		{Name: "-b", Rule: "type", Message: "must be boolean"},
		{Name: "-ns", Rule: "type", Message: "item 2: must be integer"},
		{Name: "-ratio", Rule: "type", Message: "must be number"},
	}, ce.Invalid)
}
