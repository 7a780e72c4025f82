// Command todo is a small todo service on Burrow and SQLite (or
// PostgreSQL): the plugins, typed routes, validation and error handling
// of a real service, an API for programs and a page for browsers.
//
// Run it from the repository root, then open http://127.0.0.1:8080/:
//
//	go run -C example/todo .                                  # in-memory database, one user "demo" (token logged)
//	go run -C example/todo . -db todo.db -users alice:tokenA,bob:tokenB
//
// Flags: -port (env PORT, default 8080), -host (default 127.0.0.1),
// -db (a SQLite file or a postgres:// URL; default a fresh in-memory
// SQLite database), -users name:token,… (env TODO_USERS; with none, one
// user "demo" with a random token, logged once at start), -openapi
// (print the OpenAPI document, what GET /openapi.json serves, and exit),
// -cors-origins https://a.example,https://b.example (the origins whose
// pages may call the API; none: no CORS header at all), -trusted-proxies
// 127.0.0.1/32,… (the proxies whose X-Forwarded-For gives the client's
// address, in the access log's clientIp; none: the peer's address), and
// -redis redis://host:port/db (keep sessions and rate limits in Redis,
// shared by every instance; default: in the process's memory).
//
// Traffic: -rate-limit N (requests per user per minute on the
// authenticated routes, however the user authenticates; default 600),
// -rate-limit-ip M (per client address per minute on everything else:
// 401s, failed logins, unknown paths, POST /session; not /healthz nor
// the page's files; default 60), -admin host:port (a second listener
// with /healthz, /readyz and /debug/pprof/; the public port then serves
// none of them), -drain 1s (on SIGTERM, how long /readyz fails while
// requests are still served, so a load balancer stops sending before
// the listener closes; default 0). See limits.go.
//
// Observability (observability.go): with -admin, the admin listener
// also serves GET /metrics, the public server's request metrics for
// Prometheus (http_server_requests_total and
// http_server_request_duration_seconds labelled method, route, status
// and context; http_server_active_requests; the Go runtime's and the
// process's). When the environment names a traces exporter
// (OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER), every
// request is a span ("GET /todos/{id}") exported over OTLP/HTTP, configured
// by the standard OTEL_* variables (OTEL_SERVICE_NAME,
// OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, OTEL_TRACES_SAMPLER, …); a
// request's traceparent is trusted and continued (put the service behind
// a gateway that sets or cleans it), its log lines carry trace_id and
// span_id, and the spans still buffered are exported on SIGTERM, once the
// servers have closed.
//
// The page (GET /, its files under /assets/, and the page again for a
// browser's navigation to any path outside the API) logs in with
// POST /session and is served under a strict Content-Security-Policy.
// Every answer carries security headers; JSON of 1 KiB or more is
// compressed (zstd, br or gzip, as the client prefers).
//
// GET /healthz and the description (GET /openapi.json, /openapi-3.0.json,
// /docs) need nothing. A browser session starts and ends at /session:
//
//	POST   /session      user=…&token=… (a form, or JSON {"user":…,"token":…})
//	                     204, Set-Cookie: todo_session=…; 401 for a wrong token
//	DELETE /session      204: the session ends, its cookie is cleared
//
// Every other route needs "authorization: Bearer <token>" or the
// todo_session cookie, and sees only its user's todos:
//
//	GET    /todos?limit=20&offset=0&done=true   the caller's todos by id
//	POST   /todos        {"title":…,"done":…}   201, Location: /todos/{id}
//	POST   /todos/batch  [{…},…] (1–50)         201, all created or none (409)
//	POST   /todos/import multipart/form-data, part "file": CSV with the
//	                     header title,done, up to 1000 rows and 1 MiB;
//	                     201 {"created":N}, all or none (409)
//	GET    /todos/:id                           404 if missing or another user's
//	PATCH  /todos/:id    {"title"?,"done"?}     409 if the title is taken
//	DELETE /todos/:id                           204
//
// A request that a cookie authenticates, or could (POST and DELETE
// /session), is refused 403 when another site's page sent it
// (Sec-Fetch-Site, or an Origin that is not the request's host); one
// with a bearer token never is, since no browser adds one by itself (it
// does add Basic credentials: those are checked like a cookie).
//
// GET /todos and GET /todos/:id carry an ETag (a hash of the body) and
// Cache-Control "private, no-cache": sent back in If-None-Match, the tag
// gets 304 and no body while the answer is unchanged. PATCH and DELETE
// /todos/:id with If-Match change the todo only if it is still that
// version (412 otherwise); with -require-if-match, they answer 428
// without If-Match. See caching.go.
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
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/session/redisstore"
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
	redis.SetLogger(redisLog{logger.Named("redis")}) // process-wide: set once, here
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
	openapi  bool     // print the OpenAPI document and exit
	origins  []string // -cors-origins
	proxies  []string // -trusted-proxies
	redis    string   // -redis: the sessions' and rate limits' Redis URL
	traffic  trafficFlags
	// requireIfMatch: -require-if-match
	requireIfMatch bool
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
	origins := fs.String("cors-origins", "", "origins whose pages may call the API, as https://a.example,https://b.example; none: no CORS")
	proxies := fs.String("trusted-proxies", "", "proxies whose X-Forwarded-For is believed, as CIDRs or addresses: 127.0.0.1/32,10.0.0.0/8")
	fs.StringVar(&c.redis, "redis", "", "keep sessions and rate limits in Redis, redis://host:port/db; none: in memory")
	fs.IntVar(&c.traffic.perUser, "rate-limit", defaultPerUser, "requests per user per minute on the authenticated routes")
	fs.IntVar(&c.traffic.perIP, "rate-limit-ip", defaultPerIP, "requests per client address per minute on the other routes (401s, failed logins and unknown paths count)")
	fs.BoolVar(&c.requireIfMatch, "require-if-match", false, "answer 428 to a PATCH or DELETE of a todo without If-Match")
	fs.StringVar(&c.traffic.admin, "admin", "", "host:port of the admin listener (GET /healthz, /readyz, /metrics, /debug/pprof/); none by default")
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
	c.origins, c.proxies = splitList(*origins), splitList(*proxies)
	return c, nil
}

// splitList reads a comma-separated flag: its items, spaces trimmed, empty
// ones skipped. The plugins the items go to judge them, at start-up.
func splitList(flag string) []string {
	var items []string
	for item := range strings.SplitSeq(flag, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
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
	obs, err := newObservability(ctx, cfg.traffic.admin != "", getenv)
	if err != nil {
		return err
	}
	defer obs.close(logger) // after the servers' close: every span has ended
	st := setup{users: cfg.users, origins: cfg.origins, obs: obs, requireIfMatch: cfg.requireIfMatch}
	var rdb *redis.Client
	if cfg.redis != "" {
		rdb, err = openRedis(ctx, cfg.redis)
		if err != nil {
			return err
		}
		defer rdb.Close()
		st.sessions = redisstore.New(rdb)
	}
	st.traffic = newTraffic(cfg.traffic, rdb)
	s, err := newServer(ctx, db, st, app.WithLogger(logger), app.WithTrustedProxies(cfg.proxies...),
		app.WithDrainDelay(cfg.traffic.drain))
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
	admin, err := st.traffic.startAdmin(cfg.traffic.admin, logger, obs)
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
