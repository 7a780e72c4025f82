// Command conduit is the RealWorld API ("Conduit", a Medium clone's back
// end) on Burrow, on SQLite or PostgreSQL. It passes RealWorld's own API
// test suite.
//
// Run it from the repository root:
//
//	go run -C example/conduit .                              # SQLite in memory, on 127.0.0.1:8080
//	go run -C example/conduit . -db conduit.db               # a SQLite file
//	go run -C example/conduit . -db postgres://user@host/db  # PostgreSQL
//
// Flags: -port (default 8080), -host (default 127.0.0.1), -db
// (a SQLite file, "" for a fresh in-memory database, or a postgres://
// URL), -jwt-secret (at least 32 characters; default a random secret per
// run, so tokens do not outlive the process), -cors-origins (the origins of
// browser front ends allowed to call the API, comma-separated; none: no
// CORS). Each flag also reads CONDUIT_<NAME> (CONDUIT_JWT_SECRET, or
// CONDUIT_JWT_SECRET_FILE naming a file that holds it), -port also PORT;
// a value that is not valid stops the command with exit status 2. The API is under /api, its
// OpenAPI document at /api/openapi.json with a page at /api/docs;
// GET /healthz answers 200 once the server serves.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/config"
)

func main() {
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conduit:", err)
		os.Exit(1)
	}
	err = run(context.Background(), os.Args[1:], os.Getenv, logger, nil)
	_ = logger.Sync()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "conduit:", err)
	}
	os.Exit(app.ExitCode(err))
}

// settings is what the flags and the environment say.
type settings struct {
	Port      int           `flag:"port" env:"PORT" default:"8080" validate:"min=0,max=65535" usage:"port to listen on"`
	Host      string        `flag:"host" default:"127.0.0.1" validate:"required" usage:"address to listen on"`
	DB        config.URL    `flag:"db" usage:"a SQLite file, \"\" for a fresh in-memory database, or a postgres:// URL"`
	JWTSecret config.Secret `flag:"jwt-secret" validate:"min=32" usage:"the secret JWTs are signed with, at least 32 characters; default a random one per run"`
	Origins   []string      `flag:"cors-origins" usage:"origins of browser front ends allowed to call the API, comma-separated (https://app.example); none: no CORS"`
}

func parseFlags(args []string, getenv func(string) string) (settings, error) {
	var s settings
	err := config.Load(&s, config.Args(args), config.Getenv(getenv), config.EnvPrefix("CONDUIT_"))
	return s, err
}

// run serves until ctx is done, SIGINT or SIGTERM (app.Run). started,
// when not nil, learns the address once the server accepts connections
// (tests listen on port 0).
func run(ctx context.Context, args []string, getenv func(string) string, logger *zap.Logger, started func(net.Addr)) error {
	cfg, err := parseFlags(args, getenv)
	if err != nil {
		return err
	}
	secret := []byte(cfg.JWTSecret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
	}
	d, err := openDB(ctx, string(cfg.DB))
	if err != nil {
		return err
	}
	s := build(d, newTokens(secret), cfg.Origins, app.WithLogger(logger))
	if started != nil {
		s.OnListen(func(addr net.Addr) error { started(addr); return nil })
	}
	return app.Run(ctx, app.Serving(s, net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))), app.Closing(d))
}
