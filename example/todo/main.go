// Command todo is a small todo service on Burrow and SQLite (or
// PostgreSQL): the plugins, typed routes, validation and error handling
// of a real service, an API for programs and a page for browsers.
//
// Run it from the repository root, then open http://127.0.0.1:8080/:
//
//	go run -C example/todo .                                  # in-memory database, one user "demo" (token logged)
//	go run -C example/todo . -db todo.db -users alice:tokenA,bob:tokenB
//
// Every flag also reads the variable TODO_<NAME>, its name upper-cased
// with "-" as "_" (-rate-limit, TODO_RATE_LIMIT), and TODO_<NAME>_FILE
// names a file holding the value (a mounted secret); a flag on the
// command line wins. Values that are not valid stop the command before
// it listens, with exit status 2 and a line for each, naming its rule
// (config.go). -print-config prints the effective configuration as JSON,
// secrets redacted, and exits.
//
// Flags: -port (also env PORT, default 8080), -host (default 127.0.0.1),
// -db (a SQLite file or a postgres:// URL; default a fresh in-memory
// SQLite database), -users name:token,… (with none, one
// user "demo" with a random token, logged once at start), -openapi
// (print the OpenAPI document, what GET /openapi.json serves, and exit;
// -openapi-version 3.2 or 3.0 prints that rendition instead), -routes
// (print the routes as JSON with what guards each, and exit),
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
// Identity providers: -jwt-issuer URL with -jwt-audience AUD (read,
// checked and printed; not used yet), and -oidc-issuer URL with
// -oidc-client-id, -oidc-client-secret (better given as
// TODO_OIDC_CLIENT_SECRET_FILE) and -public-url BASE: browser log-in
// through the provider (oidc.go), GET /login/oidc, which sends the
// browser there, its callback BASE/login/oidc/callback, which ends in
// the same session as POST /session for the user named by the ID
// token's preferred_username (or sub), and POST /logout/oidc.
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
// GET /healthz and the description (GET /openapi.json, /openapi-3.2.json,
// /openapi-3.0.json, /docs) need nothing. A browser session starts and ends at /session:
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
//	GET    /todos/live   a WebSocket: {"type":"created"|"updated"|"deleted",
//	                     "todo":{…}} for each change to the caller's todos,
//	                     made on any instance (through -redis, or the one
//	                     PostgreSQL database of -db); {"type":"ping"} is
//	                     answered {"type":"pong"}; see live.go
//	GET    /todos/events the same changes as server-sent events
//	                     (event: created, data: the WebSocket's message)
//
// A request that a cookie authenticates, or could (POST and DELETE
// /session), is refused 403 when another site's page sent it
// (Sec-Fetch-Site, or an Origin that is not the request's host); one
// with a bearer token never is, since no browser adds one by itself (it
// does add Basic credentials: those are checked like a cookie). So is a
// WebSocket handshake with the cookie whose Origin is neither the
// service's nor one of -cors-origins (403, no upgrade).
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
	"io"
	"net"
	"os"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/config"
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
	err = run(context.Background(), os.Args[1:], os.Getenv, logger, nil)
	_ = logger.Sync()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "todo:", err)
	}
	os.Exit(app.ExitCode(err)) // 2 for a configuration that is not valid
}

// run serves until ctx is done, SIGINT or SIGTERM (app.Run). started,
// when not nil, learns the public address once every listener accepts
// connections (tests listen on port 0).
func run(ctx context.Context, args []string, getenv func(string) string, logger *zap.Logger, started func(net.Addr)) (err error) {
	cfg, err := parseFlags(args, getenv)
	if err != nil {
		return err
	}
	if cfg.PrintConfig {
		out, err := config.Dump(cfg)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(out)
		return err
	}
	if cfg.JWTIssuer != "" {
		logger.Warn("-jwt-issuer is not used yet: no JWT is accepted")
	}
	users := []user(cfg.Users)
	if len(users) == 0 {
		// Never serve with a guessable token: make one and say it once.
		token, err := randomToken()
		if err != nil {
			return err
		}
		users = []user{{name: "demo", token: token}}
		logger.Warn("no users configured (-users or TODO_USERS): user demo gets a random token for this run", zap.String("token", token))
	}

	// What is opened is closed once the servers have (app.Closing), or
	// here when the start fails before they run.
	var stores []io.Closer
	handedOver := false
	defer func() {
		if !handedOver {
			for i := len(stores) - 1; i >= 0; i-- {
				err = errors.Join(err, stores[i].Close())
			}
		}
	}()
	db, err := openDB(ctx, string(cfg.DB))
	if err != nil {
		return err
	}
	stores = append(stores, db)
	obs, err := newObservability(ctx, cfg.Admin != "", getenv)
	if err != nil {
		return err
	}
	// Flushed after the servers' close: every span has ended.
	stores = append(stores, closer(func() error { obs.close(logger); return nil }))
	st := setup{users: users, origins: cfg.Origins, obs: obs, requireIfMatch: cfg.RequireIfMatch, oidc: oidcConfig{
		issuer: cfg.OIDCIssuer, clientID: cfg.OIDCClientID, clientSecret: string(cfg.OIDCClientSecret), publicURL: cfg.PublicURL,
	}}
	var rdb *redis.Client
	if cfg.Redis != "" {
		rdb, err = openRedis(ctx, string(cfg.Redis))
		if err != nil {
			return err
		}
		stores = append(stores, rdb)
		st.sessions = redisstore.New(rdb)
	}
	st.traffic = newTraffic(cfg.traffic(), rdb)
	bus, busConns, err := newBus(ctx, cfg, postgres(db), rdb)
	if err != nil {
		return err
	}
	if busConns != nil {
		stores = append(stores, busConns)
	}
	st.bus = bus
	s, err := newServer(ctx, db, st, app.WithLogger(logger), app.WithTrustedProxies(cfg.Proxies...),
		app.WithDrainDelay(cfg.Drain))
	if err != nil {
		return err
	}
	if cfg.OpenAPI || cfg.Routes {
		err := s.Ready()
		if err == nil && cfg.OpenAPI {
			err = printOpenAPI(os.Stdout, s, cfg.OpenAPIVersion)
		} else if err == nil {
			err = printRoutes(os.Stdout, s)
		}
		return errors.Join(err, s.Close(context.Background()))
	}

	servers := []app.RunOption{app.Serving(s, net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))}
	var admin *app.Server
	if cfg.Admin != "" {
		admin = newAdmin(st.traffic.checks, app.WithLogger(logger.Named("admin")), app.WithoutRequestLogging())
		obs.routes(admin) // GET /metrics
		admin.OnListen(func(addr net.Addr) error {
			logger.Info("admin listening", zap.Stringer("addr", addr))
			return nil
		})
		// After the public server: /readyz fails from the moment the
		// public server begins to close (its drain) until it has closed.
		servers = append(servers, app.Serving(admin, string(cfg.Admin)))
	}
	if started != nil {
		whenListening(started, s, admin)
	}
	handedOver = true
	return app.Run(ctx, append(servers, app.Closing(stores...))...)
}

// whenListening calls started with the public server's address once it
// and the admin server, when there is one, listen.
func whenListening(started func(net.Addr), public, admin *app.Server) {
	var (
		mu      sync.Mutex
		waiting = 1
		addr    net.Addr
	)
	listening := func(a net.Addr) error {
		mu.Lock()
		defer mu.Unlock()
		if a != nil {
			addr = a
		}
		if waiting--; waiting == 0 {
			started(addr)
		}
		return nil
	}
	public.OnListen(listening)
	if admin != nil {
		waiting++
		admin.OnListen(func(net.Addr) error { return listening(nil) })
	}
}

// closer is a function as an io.Closer.
type closer func() error

func (c closer) Close() error { return c() }
