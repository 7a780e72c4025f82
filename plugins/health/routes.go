package health

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// RoutesOption configures Routes.
type RoutesOption func(*routes)

type routes struct{ live, ready string }

// Paths sets the probes' paths ("/healthz", "/readyz").
func Paths(live, ready string) RoutesOption {
	return func(r *routes) { r.live, r.ready = live, ready }
}

// Routes returns a wrapped plugin serving the probes, GET and HEAD, in
// the context that registers it. Readiness fails too while that server,
// or one a check was registered on, closes (Close turns IsReady false
// first, so a load balancer stops sending before the drain).
func (cs *Checks) Routes(opts ...RoutesOption) *app.Plugin {
	r := routes{live: "/healthz", ready: "/readyz"}
	for _, o := range opts {
		o(&r)
	}
	return app.Wrap(func(s *app.Server) error {
		cs.mu.Lock()
		cs.servers = append(cs.servers, s)
		cs.mu.Unlock()
		if err := s.Get(r.live, func(rep *httpx.Reply) error {
			return rep.Send(map[string]string{"status": "ok"})
		}); err != nil {
			return err
		}
		return s.Get(r.ready, func(rep *httpx.Reply) error {
			report, ready := cs.Report()
			if !ready {
				rep.Code(http.StatusServiceUnavailable)
			}
			rep.Header()["Cache-Control"] = noStore
			return rep.Send(report)
		})
	}, app.Name("health"))
}

var noStore = []string{"no-store"}
