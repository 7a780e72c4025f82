package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	readiness "github.com/burrow-go/burrow/plugins/health"
)

// newAdmin is the admin listener's server: GET/HEAD /healthz (the
// process serves), /readyz (every check passes and the public server is
// not closing: 200 {"status":"ready",…} or 503 {"status":"failing",…}
// naming each check) and the profiler under /debug/pprof/. It is a
// server of its own, for a private address: the public port serves none
// of these, and no rate limit applies here.
func newAdmin(checks *readiness.Checks, opts ...app.Option) *app.Server {
	s := app.New(opts...)
	s.Register(checks.Routes())
	s.Mount("/debug/pprof", profiler())
	return s
}

// profiler serves net/http/pprof's pages. Mount strips its prefix, and
// pprof's index finds the profile a path names by that prefix, so it is
// put back.
func profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := *r
		u := *r.URL
		u.Path, u.RawPath = "/debug/pprof"+r.URL.Path, ""
		r2.URL = &u
		mux.ServeHTTP(w, &r2)
	})
}

// adminListener is a running admin server; nil when there is none.
type adminListener struct {
	s    *app.Server
	errc chan error
}

// startAdmin serves the admin server on addr, when there is one, with
// obs's scrape route, and logs the address it listens on (port 0 picks
// one).
func (t *traffic) startAdmin(addr string, logger *zap.Logger, obs *observability) (*adminListener, error) {
	if addr == "" {
		return nil, nil
	}
	s := newAdmin(t.checks, app.WithLogger(logger.Named("admin")), app.WithoutRequestLogging())
	obs.routes(s) // GET /metrics
	if err := s.Ready(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = s.Close(context.Background())
		return nil, fmt.Errorf("admin listener: %w", err)
	}
	logger.Info("admin listening", zap.Stringer("addr", ln.Addr()))
	a := &adminListener{s: s, errc: make(chan error, 1)}
	go func() { a.errc <- s.Serve(ln) }()
	return a, nil
}

// close closes the admin server once the public one has: /readyz fails
// from the moment the public server begins to close (its drain) until
// the end.
func (a *adminListener) close(ctx context.Context) error {
	if a == nil {
		return nil
	}
	if err := a.s.Close(ctx); err != nil {
		return err
	}
	return <-a.errc
}
