package config_test

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/burrow-go/burrow/app/config"
)

func ExampleLoad() {
	type settings struct {
		Port     int           `flag:"port" default:"8080" validate:"min=0,max=65535"`
		Drain    time.Duration `flag:"drain" default:"1s" validate:"min=0"`
		Audience string        `flag:"jwt-audience"`
		Issuer   string        `flag:"jwt-issuer" requires:"jwt-audience"`
	}
	env := map[string]string{"SHOP_DRAIN": "soon"}
	var s settings
	err := config.Load(&s, config.Args([]string{"-port", "99999", "-jwt-issuer", "https://id.example"}),
		config.Getenv(func(name string) string { return env[name] }), config.EnvPrefix("SHOP_"))
	fmt.Println(err)
	// Output:
	// invalid configuration:
	// 	-port must be <= 65535 (rule max)
	// 	SHOP_DRAIN must be a duration, as 1s, 500ms or 1m30s (rule type)
	// 	-jwt-issuer needs -jwt-audience (or SHOP_JWT_AUDIENCE) as well (rule requires)
}

func ExampleSecret() {
	key := config.Secret("sk_live_0123456789")
	fmt.Println(key, fmt.Sprintf("%q", key))
	slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})).Info("starting", "key", key)
	db := config.URL("postgres://shop:hunter2@db.internal/shop")
	fmt.Println(db)
	// Output:
	// [redacted] "[redacted]"
	// level=INFO msg=starting key=[redacted]
	// postgres://shop:[redacted]@db.internal/shop
}

func ExampleDump() {
	type settings struct {
		Port int           `flag:"port" default:"8080"`
		Key  config.Secret `env:"API_KEY"`
	}
	var s settings
	if err := config.Load(&s, config.Args(nil), config.Getenv(func(name string) string {
		if name == "API_KEY" {
			return "sk_live_0123456789"
		}
		return ""
	})); err != nil {
		panic(err)
	}
	out, err := config.Dump(s)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// {
	//   "port": 8080,
	//   "API_KEY": "[redacted]"
	// }
}
