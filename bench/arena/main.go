// Command arena is Burrow's server for the test profiles of HttpArena,
// the project's side of the peer benchmark's WORKLOAD=arena:
//
//	arena -port 8080 -data DIR -redis redis://127.0.0.1:6379
//
// It is written as a Burrow application would be: typed routes with path
// and query fields, text and JSON replies through Burrow's writer, the
// upload and the item update through Burrow's body reading, compression by
// plugins/compress on the /json route, the production-stack's token check
// as an OnRequest hook of the /api context. DIR holds dataset.json, the
// static/ files and arena.db, as the benchmark's generator makes them.
// Without -data and -redis, the /api routes answer 503.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "arena:", err)
		os.Exit(1)
	}
}

// config is the command line, and the token secret from JWT_SECRET.
type config struct {
	port   int
	data   string
	redis  string
	secret []byte
}

// defaultSecret is the benchmark's HS256 secret when JWT_SECRET is unset.
const defaultSecret = "httparena-bench-secret-do-not-use-in-production" // #nosec G101 -- the public benchmark token's secret

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.port, "port", 0, "port to listen on, on 127.0.0.1")
	fs.StringVar(&c.data, "data", "", "data folder: dataset.json, static/, arena.db")
	fs.StringVar(&c.redis, "redis", "", "Redis URL of the production-stack cache (redis://127.0.0.1:6379)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.port < 1 || c.port > 65535 {
		return c, errors.New("usage: arena -port PORT [-data DIR] [-redis URL] (a port from 1 to 65535)")
	}
	c.secret = []byte(defaultSecret)
	if s := os.Getenv("JWT_SECRET"); s != "" {
		c.secret = []byte(s)
	}
	return c, nil
}

// run serves until SIGINT or SIGTERM.
func run(args []string, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	// Errors only, unsampled and without an access log: no server of the
	// benchmark writes a line per request.
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		return err
	}
	defer logger.Sync() //nolint:errcheck // stderr sync errors are not actionable
	s, closeData, err := newServer(c, app.WithLogger(logger), app.WithoutRequestLogging())
	if err != nil {
		return err
	}
	defer closeData()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- s.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(closeCtx); err != nil {
		return err
	}
	return <-errc
}
