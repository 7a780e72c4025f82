package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app/config"
)

// TestSecretIsNeverShown: fmt's verbs, encoding/json, slog and zap all
// print "[redacted]" for a Secret, alone or inside a struct.
func TestSecretIsNeverShown(t *testing.T) {
	t.Parallel()
	const value = "hunter2-the-secret"
	s := config.Secret(value)
	type holder struct {
		Name string
		Key  config.Secret
		DB   config.URL
	}
	h := holder{Name: "n", Key: s, DB: config.URL("postgres://u:" + value + "@h/db")}
	var shown []string
	for _, verb := range []string{"%v", "%s", "%q", "%x", "%X", "%#v", "%+v", "%10s", "%d"} {
		shown = append(shown, fmt.Sprintf(verb, s), fmt.Sprintf(verb, h), fmt.Sprintf(verb, &h))
	}
	shown = append(shown, fmt.Sprint(s), fmt.Sprintln(h), s.String())
	js, err := json.Marshal(h)
	require.NoError(t, err)
	shown = append(shown, string(js))
	assert.JSONEq(t, `{"Name":"n","Key":"[redacted]","DB":"postgres://u:[redacted]@h/db"}`, string(js))

	var slogs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&slogs, nil))
	log.Info("start", "key", s, "holder", h, "db", h.DB)
	log.Info("start", slog.Any("key", s))
	shown = append(shown, slogs.String())
	assert.Contains(t, slogs.String(), `"key":"[redacted]"`)

	var zaps bytes.Buffer
	zl := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&zaps), zap.DebugLevel))
	zl.Info("start", zap.Any("key", s), zap.Stringer("key2", s), zap.Reflect("holder", h), zap.Any("db", h.DB))
	zl.Sugar().Infow("start", "key", s, "holder", h)
	shown = append(shown, zaps.String())
	assert.Contains(t, zaps.String(), `"key":"[redacted]"`)

	for _, out := range shown {
		assert.NotContains(t, out, value)
		assert.NotContains(t, out, fmt.Sprintf("%x", value))
	}
	assert.Contains(t, fmt.Sprintf("%q", s), `"[redacted]"`)
	assert.Equal(t, value, string(s), "a conversion is the value")
	assert.Empty(t, config.Secret("").String(), "an empty secret is shown empty")
}

func TestURLRedactsItsPassword(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://app:pw@db.example:5432/todo?sslmode=require": "postgres://app:[redacted]@db.example:5432/todo?sslmode=require",
		"redis://:pw@127.0.0.1:6379/0":                           "redis://:[redacted]@127.0.0.1:6379/0",
		"redis://user@127.0.0.1:6379/0":                          "redis://user@127.0.0.1:6379/0",
		"postgres://db.example/todo?user=app&password=pw&x=1":    "postgres://db.example/todo?user=app&password=[redacted]&x=1",
		"postgres://a:pw@h/db?sslpassword=pw2#frag":              "postgres://a:[redacted]@h/db?sslpassword=[redacted]#frag",
		"host=db.example password='p w' user=app":                "host=db.example password=[redacted] user=app",
		"host=db.example PASSWORD=pw":                            "host=db.example PASSWORD=[redacted]",
		"todo.db":                                                "todo.db",
		"":                                                       "",
		"postgres://a:p%zz@h/db":                                 "[redacted]",
		"a:pw@h":                                                 "[redacted]",
	} {
		u := config.URL(in)
		assert.Equal(t, want, u.String(), in)
		assert.Equal(t, want, fmt.Sprint(u), in)
	}
}
