// Command todo is a small todo API on Burrow and SQLite: the plugins,
// typed routes, validation and error handling of a real service.
//
// Run it from the repository root:
//
//	go run -C example/todo .                                  # in-memory database, one user "demo" (token logged)
//	go run -C example/todo . -db todo.db -users alice:tokenA,bob:tokenB
//
// Flags: -port (env PORT, default 8080), -host (default 127.0.0.1),
// -db (a SQLite file or a postgres:// URL; default a fresh in-memory
// SQLite database), -users name:token,… (env TODO_USERS; with none, one
// user "demo" with a random token, logged once at start), -openapi
// (print the OpenAPI document, what GET /openapi.json serves, and exit).
//
// Traffic: -rate-limit N (requests per user per minute on the
// authenticated routes, default 600), -rate-limit-ip M (per client address
// per minute on everything else: 401s, failed logins, unknown paths;
// default 60), -redis redis://host:port/db (limits shared by every
// instance on that Redis), -trusted-proxies 10.0.0.0/8,… (the proxies
// whose X-Forwarded-For is believed), -admin host:port (a second listener
// with /healthz, /readyz and /debug/pprof/; the public port then serves
// none of them), -drain 1s (how long /readyz fails before the listener
// closes on SIGTERM, for a load balancer to notice). See limits.go.
//
// Every route but GET /healthz and the description (GET /openapi.json,
// /openapi-3.0.json, /docs) needs "authorization: Bearer <token>" and
// sees only its user's todos:
//
//	GET    /todos?limit=20&offset=0&done=true   the caller's todos by id
//	POST   /todos        {"title":…,"done":…}   201, Location: /todos/{id}
//	POST   /todos/batch  [{…},…] (1–50)         201, all created or none (409)
//	GET    /todos/:id                           404 if missing or another user's
//	PATCH  /todos/:id    {"title"?,"done"?}     409 if the title is taken
//	DELETE /todos/:id                           204
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
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
	// Production JSON logs on stderr, unsampled: a log that drops lines
	// under load is worse than none.
	cfg := zap.NewProductionConfig()
	cfg.Sampling = nil
	logger, err := cfg.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "todo:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, os.Args[1:], os.Getenv, logger, nil)
	stop()
	_ = logger.Sync()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "todo:", err)
		os.Exit(1)
	}
}

// config is what the flags and the environment say.
type config struct {
	host, db string
	port     int
	users    []user
	openapi  bool // print the OpenAPI document and exit

	redisURL string // -redis: limits (and sessions) shared through Redis
	traffic  trafficFlags
}

// parseFlags reads args, with getenv for the variables the flags default
// to.
func parseFlags(args []string, getenv func(string) string) (config, error) {
	var c config
	fs := flag.NewFlagSet("todo", flag.ContinueOnError)
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	fs.StringVar(&port, "port", port, "port to listen on (env PORT)")
	fs.StringVar(&c.host, "host", "127.0.0.1", "address to listen on")
	fs.StringVar(&c.db, "db", "", "a SQLite database file, empty for a fresh in-memory database, or a postgres:// URL")
	fs.BoolVar(&c.openapi, "openapi", false, "print the OpenAPI 3.1 document (what GET /openapi.json serves), then exit")
	users := fs.String("users", getenv("TODO_USERS"), "users as name:token,name:token (env TODO_USERS); none: one user \"demo\" with a random token")
	fs.StringVar(&c.redisURL, "redis", "", "redis://host:port/db: share rate limits with every instance on that Redis")
	fs.IntVar(&c.traffic.perUser, "rate-limit", defaultPerUser, "requests per user per minute on the authenticated routes")
	fs.IntVar(&c.traffic.perIP, "rate-limit-ip", defaultPerIP, "requests per client address per minute on the other routes (401s, failed logins and unknown paths count)")
	fs.StringVar(&c.traffic.proxies, "trusted-proxies", "", "comma-separated addresses or CIDR prefixes of the proxies whose X-Forwarded-For is believed")
	fs.StringVar(&c.traffic.admin, "admin", "", "host:port of the admin listener (GET /healthz, /readyz, /debug/pprof/); none by default")
	fs.DurationVar(&c.traffic.drain, "drain", 0, "on SIGTERM, how long /readyz fails while requests are still served, before the listener closes")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := c.traffic.check(); err != nil {
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
	if c.users, err = parseUsers(*users); err != nil {
		return c, err
	}
	return c, nil
}

// closeTimeout bounds the graceful close: requests in flight get this
// long to finish.
const closeTimeout = 10 * time.Second

// run serves until ctx is done. started, when not nil, learns the address
// once the server accepts connections (tests listen on port 0).
func run(ctx context.Context, args []string, getenv func(string) string, logger *zap.Logger, started func(net.Addr)) error {
	cfg, err := parseFlags(args, getenv)
	if err != nil {
		return err
	}
	if len(cfg.users) == 0 {
		// Never serve with a guessable token: make one and say it once.
		token, err := randomToken()
		if err != nil {
			return err
		}
		cfg.users = []user{{name: "demo", token: token}}
		logger.Warn("no users configured (-users or TODO_USERS): user demo gets a random token for this run", zap.String("token", token))
	}
	db, err := openDB(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := newTraffic(cfg)
	if err != nil {
		return err
	}
	defer t.close()
	s, err := newServer(ctx, db, cfg.users, t, app.WithLogger(logger),
		app.WithTrustedProxies(cfg.traffic.trustedProxies()...), app.WithDrainDelay(cfg.traffic.drain))
	if err != nil {
		return err
	}
	if err := s.Ready(); err != nil {
		return err
	}
	if cfg.openapi {
		return printOpenAPI(os.Stdout, s)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		return err
	}
	admin, err := t.startAdmin(cfg.traffic.admin, logger)
	if err != nil {
		_ = ln.Close()
		return errors.Join(err, s.Close(ctx))
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	if started != nil {
		started(ln.Addr())
	}
	select {
	case err := <-errc:
		return errors.Join(err, admin.close(context.Background()))
	case <-ctx.Done():
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := s.Close(closeCtx); err != nil {
		return errors.Join(err, admin.close(closeCtx))
	}
	return errors.Join(<-errc, admin.close(closeCtx))
}
