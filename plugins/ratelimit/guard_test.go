package ratelimit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// The policies are guards of the routes they count, and an Exempt route
// is out of those it names: the routes' guards say what the limiter
// does, for both placements.
func TestPoliciesAreGuardsOfTheRoutesTheyCount(t *testing.T) {
	t.Parallel()
	for _, hook := range []bool{false, true} {
		s := apptest.New(t)
		opts := []ratelimit.Option{
			ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: 10, Window: time.Minute, Key: ratelimit.ByIP()}),
			ratelimit.Limit(ratelimit.Policy{Name: "burst", Limit: 100, Window: time.Minute, Key: ratelimit.ByIP()}),
		}
		if hook {
			opts = append(opts, ratelimit.AsHook(app.OnRequest))
		}
		require.NoError(t, s.Register(ratelimit.Plugin(opts...)))
		ok := func() (string, error) { return "ok", nil }
		require.NoError(t, s.Get("/counted", ok))
		require.NoError(t, s.Get("/feed", ok, app.WithConfig(ratelimit.Exempt{Policies: []string{"ip"}})))
		require.NoError(t, s.Get("/healthz", ok, app.WithConfig(ratelimit.Exempt{})))
		require.NoError(t, s.Ready())
		got := map[string][]string{}
		for _, r := range s.Routes() {
			got[r.Path] = r.Guards.RateLimit
		}
		assert.Equal(t, map[string][]string{"/counted": {"burst", "ip"}, "/feed": {"burst"}, "/healthz": {}}, got, "hook %v", hook)
	}
}
