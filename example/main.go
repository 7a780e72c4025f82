// Command example is Burrow's reference server: Fastify's encapsulation
// example, on Burrow.
//
//	go run ./example                # port 8000, a random key logged at start
//	go run ./example -keys k1,k2    # accept these bearer keys on /one
//	go run ./example -share         # wrap grandchildContext: /two sees bar
//	go run ./example -print         # print plugins, routes with hooks, visibility; exit
//	go run ./example -dot | dot -Tsvg > contexts.svg   # the context tree
//	go run ./example -openapi       # print the OpenAPI document; exit
//
// Routes: GET /one (bearer key required) → {"answer":42};
// GET /two → {"answer":42,"foo":"foo"}; GET /three →
// {"answer":42,"foo":"foo","bar":"bar"}; POST /echo → the validated JSON
// body {"message":…,"tags":[…]} back (400 listing every failing field);
// GET /events → Server-Sent Events, a "tick" every -tick (default 1s)
// with the decorators /two sees and the event's number, and a last
// "close" event when the server shuts down.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	port := os.Getenv("PORT")
	if port == "" {
		port = "8000"
	}
	fs.StringVar(&port, "port", port, "port to listen on (env PORT)")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	keyList := fs.String("keys", os.Getenv("API_KEYS"), "comma-separated bearer keys for /one (env API_KEYS)")
	share := fs.Bool("share", false, "wrap grandchildContext with the plugin-wrapper, so /two sees bar")
	printTrees := fs.Bool("print", false, "print the plugin tree, the routes with their hook chains and what each context sees, then exit")
	printDOT := fs.Bool("dot", false, "print the context tree in Graphviz DOT, then exit")
	printOpenAPI := fs.Bool("openapi", false, "print the OpenAPI 3.1 document (what GET /openapi.json serves), then exit")
	drain := fs.Duration("drain", 0, "on SIGTERM, keep serving this long with /readyz answering 503 before closing (set it to the load balancer's check interval × fall count)")
	admin := fs.String("admin", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060); off by default")
	tick := fs.Duration("tick", time.Second, "how often GET /events sends an event")
	logRequests := fs.Bool("log-requests", false, "log one line when a request starts and one when it completes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// A PORT that is not a port is refused, not replaced by the default:
	// the server would listen where nobody looks for it.
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("invalid port %q: want a number from 0 to 65535", port)
	}
	// time.NewTicker panics on a period that is not positive, in every
	// GET /events; a negative drain delay means nothing.
	if *tick <= 0 {
		return fmt.Errorf("invalid -tick %s: want a positive duration", *tick)
	}
	if *drain < 0 {
		return fmt.Errorf("invalid -drain %s: want zero or a positive duration", *drain)
	}

	// Production JSON logs on stderr, without zap's default sampling: an
	// access log that drops lines under load is worse than none.
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		return err
	}
	defer logger.Sync() //nolint:errcheck // stderr sync errors are not actionable

	keys := splitKeys(*keyList)
	if len(keys) == 0 {
		// Never run with a guessable key: make one and say it once.
		k, err := randomKey()
		if err != nil {
			return err
		}
		keys = []string{k}
		logger.Warn("no key configured (-keys or API_KEYS): generated one for this run", zap.String("key", k))
	}

	logOpts := []app.Option{app.WithLogger(logger)}
	if !*logRequests {
		logOpts = append(logOpts, app.WithoutRequestLogging())
	}
	s := build(keys, *share, *tick, append(logOpts, app.WithDrainDelay(*drain))...)
	if err := s.Ready(); err != nil {
		return err
	}
	if *printDOT {
		_, err := io.WriteString(stdout, s.DOT())
		return err
	}
	if *printOpenAPI {
		doc, err := openapi.Build(s.Routes(), apiInfo)
		if err != nil {
			return err
		}
		_, err = stdout.Write(doc.JSON())
		return err
	}
	if *printTrees {
		_, err := fmt.Fprintf(stdout, "Plugins\n%s\nRoutes\n%s\nVisibility\n%s",
			s.PrintPlugins(), s.PrintRoutes(app.IncludeHooks()), s.PrintVisibility())
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *admin != "" {
		_, closeAdmin, err := serveAdmin(*admin, logger, logOpts[1:]...)
		if err != nil {
			return err
		}
		defer closeAdmin()
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Listen(net.JoinHostPort(*host, strconv.Itoa(p))) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	closeCtx, cancel := context.WithTimeout(context.Background(), *drain+10*time.Second)
	defer cancel()
	if err := s.Close(closeCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// ErrClosed: the signal reached Close before the goroutine reached
	// Listen, which then refused to open the closed server.
	if err := <-errc; err != nil && !errors.Is(err, app.ErrClosed) {
		return err
	}
	return nil
}

// serveAdmin serves the profiler on its own listener, kept apart from the
// API so it is never exposed where the API is. It is a Burrow server of
// its own, whose adminContext mounts every net/http/pprof handler. It
// returns the address it listens on and the function that closes it.
func serveAdmin(addr string, logger *zap.Logger, opts ...app.Option) (net.Addr, func(), error) {
	s := app.New(append([]app.Option{app.WithLogger(logger.Named("admin"))}, opts...)...)
	s.Register(mountPprof, app.Name("adminContext"))
	if err := s.Ready(); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.Serve(ln)
	}()
	logger.Info("admin listening", zap.String("address", "http://"+ln.Addr().String()+"/debug/pprof/"))
	return ln.Addr(), func() {
		// A CPU profile or trace in progress is cut after a second.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.Close(ctx)
		<-served
	}, nil
}

// mountPprof mounts net/http/pprof's handlers: the index, which serves
// the named profiles (heap, goroutine, …), and the CPU profile, the
// execution trace, cmdline and symbol, which have handlers of their own.
func mountPprof(s *app.Server) error {
	return errors.Join(
		s.Mount("/debug/pprof", http.HandlerFunc(pprofIndex)),
		s.Mount("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline)),
		s.Mount("/debug/pprof/profile", http.HandlerFunc(pprof.Profile)),
		s.Mount("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol)),
		s.Mount("/debug/pprof/trace", http.HandlerFunc(pprof.Trace)),
	)
}

// pprofIndex is pprof.Index under Mount, which strips the prefix: Index
// finds a profile's name after "/debug/pprof/" in the path, so the name
// left by the mount is served with pprof.Handler instead, and the bare
// prefix redirects to the index's own address (its links are relative).
func pprofIndex(w http.ResponseWriter, r *http.Request) {
	switch name := strings.TrimPrefix(r.URL.Path, "/"); {
	case r.URL.Path == "":
		http.Redirect(w, r, "/debug/pprof/", http.StatusMovedPermanently)
	case name != "":
		pprof.Handler(name).ServeHTTP(w, r)
	default:
		pprof.Index(w, r)
	}
}

func splitKeys(list string) []string {
	var keys []string
	for _, k := range strings.Split(list, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

func randomKey() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
