package app

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// A RunOption says what Run serves and closes.
type RunOption func(*runConfig)

type runConfig struct {
	servers []runServer
	closers []io.Closer
	timeout time.Duration
}

type runServer struct {
	s    *Server
	addr string
}

// DefaultCloseTimeout is how long Run lets each server's requests finish
// once its drain delay is over, when CloseTimeout does not say.
const DefaultCloseTimeout = 10 * time.Second

// Serving makes Run serve s on addr ("host:port"; port 0 picks one,
// which s's OnListen hooks learn). Servers close in the order they are
// given: the public one first, then an admin one whose /readyz reports
// the public one's readiness, so it answers the load balancer until the
// public server has gone.
func Serving(s *Server, addr string) RunOption {
	return func(c *runConfig) { c.servers = append(c.servers, runServer{s, addr}) }
}

// Closing makes Run close c (a database, a Redis client, a tracer's
// exporter) once every server has closed, when no request can use it
// any more: the last given first, as deferred calls run. Run closes
// them however it ends, a failed start included; a nil one is skipped.
func Closing(c ...io.Closer) RunOption {
	return func(cfg *runConfig) { cfg.closers = append(cfg.closers, c...) }
}

// CloseTimeout bounds each server's close after its drain delay: how long
// requests in flight may still run (DefaultCloseTimeout).
func CloseTimeout(d time.Duration) RunOption { return func(c *runConfig) { c.timeout = d } }

// Run is a service's main loop. It boots every server (Ready) and opens
// every listener before serving any, so that a boot or listen failure
// serves nothing; it then serves them all until ctx ends, SIGINT or
// SIGTERM arrives, or a server fails. Then it closes the servers one by
// one, in the order given, each with Close: its readiness fails first,
// its drain delay (WithDrainDelay) passes while it still serves, then it
// stops, its requests given CloseTimeout to finish. The Closing values
// are closed last. A second SIGINT or SIGTERM during the close is not
// caught: it ends the process at once.
//
// It returns nil after a close that ctx or a signal asked for and that
// went well; otherwise what failed — a boot, a listener, a server, a
// close — all of it joined. ExitCode turns the answer into the process's
// exit status:
//
//	err := app.Run(context.Background(), app.Serving(s, ":8080"), app.Serving(admin, "127.0.0.1:9090"), app.Closing(db))
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err)
//	}
//	os.Exit(app.ExitCode(err))
func Run(ctx context.Context, opts ...RunOption) error {
	cfg := runConfig{timeout: DefaultCloseTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.servers) == 0 {
		return errors.Join(errors.New("Run was given no server: give it one with Serving"), closeAll(cfg.closers))
	}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := cfg.servers[0].s.Log()

	// Boot every server, then open every listener, before serving: a
	// failure then leaves nothing half served.
	var failed error
	lns := make([]net.Listener, len(cfg.servers))
	for _, rs := range cfg.servers {
		if failed = rs.s.Ready(); failed != nil {
			break
		}
	}
	for i, rs := range cfg.servers {
		if failed != nil {
			break
		}
		lns[i], failed = net.Listen("tcp", rs.addr)
	}
	if failed != nil {
		for _, ln := range lns {
			if ln != nil {
				ln.Close()
			}
		}
		return errors.Join(failed, cfg.close(nil), closeAll(cfg.closers))
	}

	served := make([]chan error, len(cfg.servers))
	ended := make(chan int, len(cfg.servers))
	for i, rs := range cfg.servers {
		served[i] = make(chan error, 1)
		go func() {
			served[i] <- rs.s.Serve(lns[i])
			ended <- i
		}()
	}
	select {
	case <-sig.Done():
		stop() // a second signal ends the process
		if ctx.Err() == nil {
			log.Info("closing the servers", zap.String("cause", context.Cause(sig).Error())) // names the signal
		}
	case i := <-ended:
		// A server stopped on its own: its listener failed, or Close was
		// called elsewhere. The others close too.
		if failed = <-served[i]; failed == nil || errors.Is(failed, ErrClosed) {
			failed = errors.New("a server stopped serving before Run was asked to stop")
		}
		served[i] = nil
		log.Error("a server stopped: closing the others", zap.Error(failed))
	}
	return errors.Join(failed, cfg.close(served), closeAll(cfg.closers))
}

// close closes the servers in order, each given its drain delay and the
// close time-out, then waits for the Serve of each (when served holds
// its channel) to return; it returns what failed.
func (c *runConfig) close(served []chan error) error {
	var errs []error
	for i, rs := range c.servers {
		ctx, cancel := context.WithTimeout(context.Background(), rs.s.a.cfg.drainDelay+c.timeout)
		err := rs.s.Close(ctx)
		cancel()
		if err != nil {
			errs = append(errs, err)
		}
		if served != nil && served[i] != nil {
			// Close has returned, so Serve has or will at once. An
			// ErrClosed says Close began before Serve: a graceful end.
			if err := <-served[i]; err != nil && !errors.Is(err, ErrClosed) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// closeAll closes cs, the last first; a nil one is skipped.
func closeAll(cs []io.Closer) error {
	var errs []error
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i] == nil {
			continue
		}
		if err := cs[i].Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ExitCode is the exit status that says how err, what Run (or main's
// own start-up) returned, ended the program: 0 for nil (a clean stop)
// and for flag.ErrHelp (the usage was asked for and written), the
// status an error in its chain states with an ExitCode() int method (2
// for a configuration that is not valid, from package config), and 1
// for any other failure.
func ExitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return 1
}
