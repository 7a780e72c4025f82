package secure_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/secure"
)

// The root's rate limit refusing a route of an API context answers with
// the API context's headers, whichever was registered first.
func TestAncestorsRefusalCarriesTheContextsHeaders(t *testing.T) {
	t.Parallel()
	for _, limitFirst := range []bool{true, false} {
		s := apptest.New(t, app.WithoutRequestLogging())
		limit := func() {
			s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 1, Window: time.Minute, Key: ratelimit.ByIP()})))
		}
		if limitFirst {
			limit()
		}
		s.Register(func(s *app.Server) error {
			s.Register(secure.Plugin(secure.API()))
			return s.Get("/api", func() (string, error) { return "ok", nil })
		}, app.Name("api"))
		if !limitFirst {
			limit()
		}
		require.NoError(t, s.Ready())
		require.Equal(t, http.StatusOK, apptest.Get(t, s, "/api").StatusCode)
		r := apptest.Get(t, s, "/api")
		require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
		assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), "limit first: %v", limitFirst)
		assert.Equal(t, "no-referrer", r.Header.Get("Referrer-Policy"), "limit first: %v", limitFirst)
	}
}
