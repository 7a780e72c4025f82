package main

import (
	"net/http"
	"net/http/pprof"

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
