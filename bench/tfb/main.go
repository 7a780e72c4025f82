// Command tfb is Burrow's server for TechEmpower's test types on an
// SQLite file, the project's side of the peer benchmark's WORKLOAD=tfb:
//
//	tfb -port 8080 -db tfb.db
//
// GET /json, /plaintext, /db, /queries?queries=N, /fortunes and
// /updates?queries=N, on 127.0.0.1. The file must hold tables World
// (10,000 rows) and Fortune, as the benchmark's generator makes them; the
// server reads and writes rows, and creates or alters nothing.
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
		fmt.Fprintln(os.Stderr, "tfb:", err)
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM.
func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("tfb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "port to listen on, on 127.0.0.1")
	file := fs.String("db", "", "SQLite database file holding tables World and Fortune")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *port < 1 || *port > 65535 || *file == "" {
		return errors.New("usage: tfb -port PORT -db FILE (a port from 1 to 65535, an existing file)")
	}
	if _, err := os.Stat(*file); err != nil {
		return err // sql.Open would create a missing file
	}
	// Errors (a 5xx, a failed start) go to stderr as JSON; no access log,
	// as no server of the benchmark writes one per request. Unsampled: a
	// sampler's counters (about 0.75 MB) would be most of the server's
	// live heap, and under the collector's 4 MB floor they would make it
	// run a fifth more often, for a log that only errors reach.
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		return err
	}
	defer logger.Sync() //nolint:errcheck // stderr sync errors are not actionable
	s := newServer(*file, app.WithLogger(logger), app.WithoutRequestLogging())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- s.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// In-flight requests get a few seconds; none of them takes long.
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(closeCtx); err != nil {
		return err
	}
	return <-errc
}
