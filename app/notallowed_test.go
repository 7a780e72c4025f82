package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

// preflight answers a CORS preflight and passes anything else on.
func preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestPreflightAndNotAllowedReachTheContextsMiddleware(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		ok := func() (string, error) { return "ok", nil }
		s := app.New()
		require.NoError(t, s.Get("/", ok))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Get("/items/:id", ok); err != nil {
				return err
			}
			return p.Use(preflight)
		}, app.Prefix("/cors")))
		require.NoError(t, s.Register(func(p *app.Server) error { return p.Get("/items/:id", ok) }, app.Prefix("/plain")))
		send := start(s)

		pre := []string{"Origin", "http://example.com", "Access-Control-Request-Method", "GET"}
		cases := []struct {
			method, target string
			header         []string
			status         int
			allowOrigin    string
			allow          string
		}{
			{"OPTIONS", "/cors/items/1", pre, http.StatusNoContent, "*", ""},
			{"OPTIONS", "/cors/items/1", nil, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"DELETE", "/cors/items/1", nil, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"OPTIONS", "/plain/items/1", pre, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"OPTIONS", "/", pre, http.StatusMethodNotAllowed, "", "GET, HEAD"},
			{"GET", "/cors/items/1", pre, http.StatusOK, "", ""},
		}
		for _, c := range cases {
			res := send(c.method, c.target, c.header...)
			name := c.method + " " + c.target
			assert.Equal(t, c.status, res.StatusCode, name)
			assert.Equal(t, c.allowOrigin, res.Header.Get("Access-Control-Allow-Origin"), name)
			assert.Equal(t, c.allow, res.Header.Get("Allow"), name)
		}
	})
}

func TestNotAllowedOwnerIsTheFirstRoutesContext(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		tr := &trace{}
		ok := func() {}
		s := app.New()
		require.NoError(t, s.Use(tr.mark("root")))
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Use(tr.mark("p")); err != nil {
				return err
			}
			if err := p.Get("/shared", ok); err != nil {
				return err
			}
			return p.Get("/siblings", ok)
		}, app.Name("p")))
		require.NoError(t, s.Register(func(q *app.Server) error {
			if err := q.Use(tr.mark("q")); err != nil {
				return err
			}
			return q.Post("/siblings", ok)
		}, app.Name("q")))
		// Registered after the plugin, but the root's routes come first:
		// the root owns /shared.
		require.NoError(t, s.Post("/shared", ok))
		send := start(s)

		cases := []struct{ method, target, trace string }{
			{"DELETE", "/shared", "root"},     // the root's route is first
			{"GET", "/shared", "root p"},      // routes keep their own context
			{"DELETE", "/siblings", "root p"}, // p was registered before q
			{"POST", "/siblings", "root q"},
		}
		for _, c := range cases {
			send(c.method, c.target)
			assert.Equal(t, c.trace, tr.take(), c.method+" "+c.target)
		}
	})
}
