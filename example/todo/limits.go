package main

import (
	"context"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	readiness "github.com/burrow-go/burrow/plugins/health"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// checkInterval is how often the readiness checks (database, Redis)
// run: a dependency that goes away fails /readyz within about this
// long, and one that comes back passes it again.
const checkInterval = time.Second

// trafficFlags are the flags that protect the public server.
type trafficFlags struct {
	perUser, perIP int
	admin          string // -admin host:port; "" for none
	drain          time.Duration
}

// traffic is what guards the public server: its rate limits, where they
// are kept, and the readiness checks of its dependencies. The zero value
// guards nothing (tests that build a server without run).
type traffic struct {
	perUser, perIP int
	store          ratelimit.Store   // shared by every policy; Redis with -redis
	redis          *redis.Client     // with -redis
	checks         *readiness.Checks // with -admin: what /readyz reports
}

// newTraffic builds what f asks for, on rdb when not nil (-redis).
func newTraffic(f trafficFlags, rdb *redis.Client) *traffic {
	t := &traffic{perUser: f.perUser, perIP: f.perIP, store: ratelimit.NewMemory(), redis: rdb}
	if rdb != nil {
		t.store = redisLimits(rdb)
	}
	if f.admin != "" {
		t.checks = readiness.New()
	}
	return t
}

// policy is a budget of limit requests a minute per key.
func policy(name string, limit int, key ratelimit.Key) ratelimit.Policy {
	return ratelimit.Policy{Name: name, Limit: limit, Window: time.Minute, Key: key}
}

// authenticated marks the routes behind authentication (the todos
// context's): their requests spend the user's budget, not the address's,
// so the per-address middleware leaves them alone and only the answers
// to requests that did not authenticate are charged to the address, once
// answered (countFailures).
type authenticated struct{}

// uncounted marks the routes no budget covers: liveness (GET /healthz
// on the public port) and the page's files, which a browser fetches by
// the dozen and which cost nothing.
type uncounted struct{}

// guardRoot is registered at the root of the public server: the
// per-address limit as a middleware, so that unknown paths, 405s and
// every route outside the authenticated context count (POST /session, a
// failed login), except those marked uncounted — GET /healthz and the
// files of page; and the database's and Redis's readiness checks, when
// there is an admin listener to report them.
func (t *traffic) guardRoot(db interface{ PingContext(context.Context) error }, page fs.FS) *app.Plugin {
	files := filePaths(page)
	return app.Wrap(func(s *app.Server) error {
		if t.checks != nil {
			if err := s.Register(t.checks.Check("db", db.PingContext, readiness.Interval(checkInterval))); err != nil {
				return err
			}
			if t.redis != nil {
				if err := s.Register(t.checks.Check("redis", redisCheck(t.redis), readiness.Interval(checkInterval))); err != nil {
					return err
				}
			}
		}
		if t.perIP == 0 {
			return nil
		}
		if err := s.OnRoute(func(spec *app.RouteSpec) error {
			if (spec.Method == http.MethodGet || spec.Method == http.MethodHead) && (spec.Path == "/healthz" || files[spec.Path]) {
				app.SetRouteConfig(spec, uncounted{})
			}
			return nil
		}); err != nil {
			return err
		}
		return s.Register(ratelimit.Plugin(ratelimit.WithStore(t.store), ratelimit.Skip(skipPerAddress),
			ratelimit.Limit(policy("ip", t.perIP, ratelimit.ByIP()))))
	}, app.Name("traffic"))
}

// skipPerAddress reports whether the per-address middleware leaves r
// alone: a route of the authenticated context, or an uncounted one.
func skipPerAddress(r *http.Request) bool {
	if _, ok := app.RouteConfigOf[authenticated](r); ok {
		return true
	}
	_, ok := app.RouteConfigOf[uncounted](r)
	return ok
}

// filePaths is the URL path of every file of page, and of each
// directory holding an index.html ("/" for the root), as the static
// plugin serves them.
func filePaths(page fs.FS) map[string]bool {
	paths := map[string]bool{}
	if page == nil {
		return paths
	}
	_ = fs.WalkDir(page, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		paths["/"+name] = true
		if dir, base := path.Split(name); base == "index.html" {
			paths["/"+dir] = true
		}
		return nil
	})
	return paths
}

// userDecorator is the request decorator the per-user limit keys on: the
// authenticated user's row id, however the request authenticated.
const userDecorator = "user"

// userIn is what naming the request's user takes.
type userIn struct {
	app.In
	Req  *httpx.Request
	User userID
}

// guardUsers is registered in the authenticated context, after the
// authentication: it marks the context's routes, spends the user's
// budget (keyed by the user's id, never by the credential, so a user's
// bearer and session requests share one budget and two users never do),
// and charges each 401 to the client's address.
func (t *traffic) guardUsers() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if t.perUser == 0 {
			return nil
		}
		if err := s.OnRoute(func(spec *app.RouteSpec) error {
			app.SetRouteConfig(spec, authenticated{})
			return nil
		}); err != nil {
			return err
		}
		if err := s.DecorateRequest(userDecorator, userID(0)); err != nil {
			return err
		}
		if err := s.AddHook(app.OnRequest, func(_ context.Context, in userIn) error {
			return in.Req.SetDecorator(userDecorator, in.User)
		}, app.SetsDecorators(userDecorator)); err != nil {
			return err
		}
		if err := s.Register(ratelimit.Plugin(ratelimit.WithStore(t.store), ratelimit.AsHook(app.OnRequest),
			ratelimit.Limit(policy("user", t.perUser, ratelimit.ByDecorator(userDecorator, userKey))))); err != nil {
			return err
		}
		failures, err := ratelimit.New(ratelimit.WithStore(t.store), ratelimit.Logger(s.Log()),
			ratelimit.Limit(policy("ip", t.perIP, ratelimit.ByIP())))
		if err != nil {
			return err
		}
		return s.AddHook(app.OnSend, countFailures(failures))
	}, app.Name("traffic:users"))
}

// userKey is the per-user budget's key: the user's row id.
func userKey(u userID) string {
	if u == 0 {
		return ""
	}
	return strconv.FormatInt(int64(u), 10)
}

// countFailures charges every answer of the authenticated context to a
// request that did not authenticate — a 401, a 400 for two authorization
// headers, a 403 for a cross-site request — to the client's address, as
// the per-address middleware charges the rest: a client guessing tokens
// spends its address's budget, and once that is gone its guesses are
// answered 429 (the refusal replaces the answer).
func countFailures(l *ratelimit.Limiter) app.OnSendFunc {
	return func(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error) {
		if u, _ := req.Decorator(userDecorator); u != userID(0) {
			return body, nil // the user's budget paid for it
		}
		v := &verdict{h: rep.Header()}
		l.Middleware(v).ServeHTTP(v, req.Raw())
		if v.passed {
			return body, nil
		}
		delete(v.h, "Www-Authenticate")
		rep.Code(v.status)
		return v.body, nil
	}
}

// verdict runs a limiter's middleware without a response: the handler it
// wraps (passed) or the refusal it writes (status, body), its headers
// set on the reply's.
type verdict struct {
	h      http.Header
	status int
	body   []byte
	passed bool
}

func (v *verdict) ServeHTTP(http.ResponseWriter, *http.Request) { v.passed = true }
func (v *verdict) Header() http.Header                          { return v.h }
func (v *verdict) WriteHeader(status int)                       { v.status = status }
func (v *verdict) Write(b []byte) (int, error) {
	v.body = append(v.body, b...)
	return len(b), nil
}
