package shed

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// bulkheads numbers the bulkheads of the process: each one's request
// decorator has a name of its own, whichever shedder made it.
var bulkheads atomic.Int64

// Bulkhead returns a wrapped plugin capping the requests of the
// registering context and its descendants (but Never's) in flight at
// once to n: the request beyond is shed at once, it does not queue.
func (s *Shedder) Bulkhead(n int) *app.Plugin {
	var inFlight atomic.Int64
	name := "shed.inflight." + strconv.FormatInt(bulkheads.Add(1), 10)
	var err error
	if n < 1 {
		err = fmt.Errorf("shed.Bulkhead: a cap of %d admits nothing", n)
	}
	return app.Wrap(func(srv *app.Server) error {
		if err := s.watchRoutes(srv); err != nil {
			return err
		}
		if err := srv.DeclareGuard(app.Guard{Kind: app.GuardShed}); err != nil {
			return err
		}
		// The decorator marks the requests this bulkhead counted, so the
		// onResponse hook lets go of exactly those, whoever answered.
		if err := srv.DecorateRequest(name, false); err != nil {
			return err
		}
		if err := srv.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
			if s.isExempt(req) {
				return nil
			}
			if inFlight.Add(1) > int64(n) {
				inFlight.Add(-1)
				return s.shed(req, rep, ReasonInFlight)
			}
			return req.SetDecorator(name, true)
		}, app.SetsDecorators(name)); err != nil {
			return err
		}
		return srv.AddHook(app.OnResponse, func(req *httpx.Request) {
			if v, _ := req.Decorator(name); v == true {
				inFlight.Add(-1)
			}
		})
	}, app.Name("shed-bulkhead"), app.Check(func() error { return err }))
}

// Never returns a wrapped plugin exempting the registering context and
// its descendants from the shedder's plugins: health probes, metrics,
// an admin context.
func (s *Shedder) Never() *app.Plugin {
	return app.Wrap(func(srv *app.Server) error {
		s.mu.Lock()
		s.never = append(s.never, srv.Path())
		s.mu.Unlock()
		return nil
	}, app.Name("shed-never"))
}

// watchRoutes records, as srv's routes compile, which contexts are
// never shed (every Never body has run by then).
func (s *Shedder) watchRoutes(srv *app.Server) error {
	return srv.OnRoute(func(r *app.RouteSpec) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, p := range s.never {
			if r.Context == p || strings.HasPrefix(r.Context, p+" > ") {
				app.Unguard(r, app.Guard{Kind: app.GuardShed})
				m := maps.Clone(*s.exempt.Load())
				m[r.Context] = true
				s.exempt.Store(&m)
				break
			}
		}
		return nil
	})
}

func (s *Shedder) isExempt(req *httpx.Request) bool {
	return (*s.exempt.Load())[req.Route().Context]
}
