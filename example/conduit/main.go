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
// Flags: -port (env PORT, default 8080), -host (default 127.0.0.1), -db
// (a SQLite file, "" for a fresh in-memory database, or a postgres://
// URL), -jwt-secret (env CONDUIT_JWT_SECRET; default a random secret per
// run, so tokens do not outlive the process), -cors-origins (the origins of
// browser front ends allowed to call the API, comma-separated; none: no
// CORS). The API is under /api, its
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
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

func main() {
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conduit:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, os.Args[1:], os.Getenv, logger, nil)
	stop()
	_ = logger.Sync()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "conduit:", err)
		os.Exit(1)
	}
}

type config struct {
	host, db string
	port     int
	secret   []byte
	origins  []string
}

func parseFlags(args []string, getenv func(string) string) (config, error) {
	var c config
	fs := flag.NewFlagSet("conduit", flag.ContinueOnError)
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	fs.StringVar(&port, "port", port, "port to listen on (env PORT)")
	fs.StringVar(&c.host, "host", "127.0.0.1", "address to listen on")
	fs.StringVar(&c.db, "db", "", `a SQLite file, "" for a fresh in-memory database, or a postgres:// URL`)
	secret := fs.String("jwt-secret", getenv("CONDUIT_JWT_SECRET"), "the secret JWTs are signed with (env CONDUIT_JWT_SECRET); at least 32 bytes; default a random one per run")
	origins := fs.String("cors-origins", "", "origins of browser front ends allowed to call the API, comma-separated (https://app.example); none: no CORS")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return c, fmt.Errorf("invalid port %q: want a number from 0 to 65535", port)
	}
	c.port = p
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.origins = append(c.origins, o)
		}
	}
	switch {
	case *secret == "":
		c.secret = make([]byte, 32)
		rand.Read(c.secret)
	case len(*secret) < 32:
		return c, errors.New("invalid -jwt-secret: it must be at least 32 bytes")
	default:
		c.secret = []byte(*secret)
	}
	return c, nil
}

// closeTimeout bounds the graceful close.
const closeTimeout = 10 * time.Second

// run serves until ctx is done. started, when not nil, learns the address
// once the server accepts connections (tests listen on port 0).
func run(ctx context.Context, args []string, getenv func(string) string, logger *zap.Logger, started func(net.Addr)) error {
	cfg, err := parseFlags(args, getenv)
	if err != nil {
		return err
	}
	d, err := openDB(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer d.Close()
	s := build(d, newTokens(cfg.secret), cfg.origins, app.WithLogger(logger))
	if started != nil {
		s.OnListen(func(addr net.Addr) error { started(addr); return nil })
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Listen(net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port))) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := s.Close(cctx); err != nil {
		return err
	}
	return <-errc
}
