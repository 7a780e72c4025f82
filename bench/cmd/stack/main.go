// Command stack serves the production stack's route, GET /catalog, on
// Burrow or on chi (bench/internal/stack), for scripts/stack-bench.sh:
//
//	stack -peer burrow -port 8080
//	stack -peer chi -port 8081
//
// It listens on 127.0.0.1 and writes no access log. Both servers have
// the same connection time-outs: Burrow's defaults (10 s to read a
// request's header, 75 s idle, 30 s to write a reply), set on chi's
// http.Server as a production chi service sets them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bench/internal/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stack:", err)
		os.Exit(1)
	}
}

// run parses the flags and serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("stack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	peer := fs.String("peer", "burrow", "the stack to serve: burrow or chi")
	port := fs.Int("port", 0, "port to listen on, on 127.0.0.1")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *port < 1 || *port > 65535 || (*peer != "burrow" && *peer != "chi") {
		return errors.New("usage: stack -peer burrow|chi -port PORT (a port from 1 to 65535)")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	return serve(ctx, *peer, ln, stderr)
}

// Time-outs: Burrow's defaults, given to chi's server too.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 75 * time.Second
	writeTimeout      = 30 * time.Second
	// closeTimeout is how long in-flight requests get at the end.
	closeTimeout = 5 * time.Second
)

// serve serves peer's stack on ln until ctx is done, then closes
// gracefully. Errors (a 5xx, a failed start) go to stderr.
func serve(ctx context.Context, peer string, ln net.Listener, stderr io.Writer) error {
	errc := make(chan error, 1)
	var shutdown func(context.Context) error
	switch peer {
	case "burrow":
		b, err := stack.NewBurrow(app.WithoutRequestLogging(), app.WithLogger(stderrLogger(stderr)))
		if err != nil {
			ln.Close()
			return err
		}
		go func() { errc <- b.Server.Serve(ln) }()
		shutdown = b.Server.Close
	default:
		c, err := stack.NewChi()
		if err != nil {
			ln.Close()
			return err
		}
		srv := &http.Server{
			Handler: c.Handler, ReadHeaderTimeout: readHeaderTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout,
			ErrorLog: log.New(stderr, "", log.LstdFlags),
		}
		go func() { errc <- srv.Serve(ln) }()
		shutdown = srv.Shutdown
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := shutdown(closeCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stderrLogger is Burrow's logger: JSON lines on w.
func stderrLogger(w io.Writer) *zap.Logger {
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(w), zap.InfoLevel))
}
