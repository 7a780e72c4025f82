// Package health serves liveness and readiness probes, and runs the
// checks readiness is made of where their dependencies are provided: the
// plugin that opens the database registers the database's check, so the
// check exists exactly when the dependency does.
//
//	checks := health.New()
//	s.Register(func(s *app.Server) error { // the database plugin
//		db := open()
//		s.Register(checks.Check("db", db.PingContext))
//		...
//	})
//	s.Register(checks.Routes()) // GET/HEAD /healthz and /readyz
//
// /healthz is liveness: 200 while the process serves, whatever its
// dependencies say (restarting a process because its database is down
// fixes nothing). /readyz is readiness: 200 when every check passed its
// last run and the server is not closing, else 503, naming each check's
// state:
//
//	{"status":"failing","checks":{"db":"ok","redis":"dial tcp 127.0.0.1:6379: connect: connection refused"}}
//
// Checks run on their own goroutines, on an interval with a time-out, from
// Ready until Close; a probe reads their last results and never waits for
// a dependency. A check that has not finished its first run is failing
// ("pending"). A run still going at its time-out fails the check at once
// ("check timed out after 2s: context deadline exceeded"), even if it
// ignores its context; the next run starts only after it returns. Close
// waits for a running check no longer than Close's context allows. Routes may be registered in any context, of this server
// or another (an admin listener): the checks are shared through the
// *Checks value.
package health

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/burrow-go/burrow/app"
)

// Checks is a set of named checks and the probes that report them.
type Checks struct {
	mu      sync.Mutex
	checks  map[string]*check
	servers []*app.Server // whose closing fails readiness: those the checks and probes were registered on
}

// New returns an empty set of checks.
func New() *Checks { return &Checks{checks: map[string]*check{}} }

// Wait waits until every check has finished its first run, or ctx
// ends: a test, or a start-up that wants its first probe to tell the
// truth, waits on it.
func (cs *Checks) Wait(ctx context.Context) error {
	cs.mu.Lock()
	list := slices.Collect(maps.Values(cs.checks))
	cs.mu.Unlock()
	for _, c := range list {
		select {
		case <-c.first:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Report is the body of /readyz.
type Report struct {
	// Status is "ready" or "failing".
	Status string `json:"status"`
	// Checks maps each check to "ok", "pending" or its last error.
	Checks map[string]string `json:"checks"`
}

// Report returns the checks' last results; ready is true when all
// passed and no server the checks or the probes were registered on is
// closing (or not started yet).
func (cs *Checks) Report() (r Report, ready bool) {
	cs.mu.Lock()
	list := slices.Collect(maps.Values(cs.checks))
	servers := slices.Clone(cs.servers)
	cs.mu.Unlock()
	r.Checks = make(map[string]string, len(list))
	ready = true
	for _, c := range list {
		st := *c.state.Load()
		r.Checks[c.name] = st
		ready = ready && st == "ok"
	}
	for _, s := range servers {
		if !s.IsReady() {
			r.Checks["server"] = "closing"
			ready = false
		}
	}
	r.Status = "failing"
	if ready {
		r.Status = "ready"
	}
	return r, ready
}
