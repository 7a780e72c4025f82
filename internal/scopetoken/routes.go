package scopetoken

import (
	"sync"
	"sync/atomic"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// routeKey is a route as a hook sees it (httpx.RouteInfo; a HEAD twin
// has its GET's).
type routeKey struct{ method, path string }

// Routes keeps what a plugin's OnRoute hook resolved for each route (its
// Scopes), for its request hook to find: a hook has no RouteConfigOf.
// Set runs at Ready, Publish at its end (an OnReady hook), Of per
// request.
type Routes[R any] struct {
	mu      sync.Mutex
	pending map[routeKey]*R
	ready   atomic.Pointer[map[routeKey]*R]
}

// Set keeps r for the route of spec; a HEAD twin shares its GET's.
func (rs *Routes[R]) Set(spec *app.RouteSpec, r *R) {
	if spec.Twin {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.pending == nil {
		rs.pending = map[routeKey]*R{}
	}
	rs.pending[routeKey{spec.Method, spec.Path}] = r
}

// Publish makes what Set kept visible to Of.
func (rs *Routes[R]) Publish() error {
	rs.mu.Lock()
	m := rs.pending
	rs.mu.Unlock()
	rs.ready.Store(&m)
	return nil
}

// Of is what was kept for req's route, or nil.
func (rs *Routes[R]) Of(req *httpx.Request) *R {
	m := rs.ready.Load()
	if m == nil || len(*m) == 0 {
		return nil
	}
	rt := req.Route()
	if rt == nil {
		return nil
	}
	return (*m)[routeKey{rt.Method, rt.Path}]
}
