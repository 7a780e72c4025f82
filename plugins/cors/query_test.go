package cors_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
)

// TestQueryIsPreflighted: QUERY is not a CORS-safelisted method, so a
// page of another origin asks first; the preflight for it is answered
// for an allowed origin, refused (405, no CORS header) on a path that
// serves no QUERY, and the QUERY itself carries the origin's headers.
func TestQueryIsPreflighted(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("https://app.example"))))
	require.NoError(t, app.QueryRoute(s, "/todos", func(context.Context, struct {
		app.In
		Text string `body:""`
	}) (string, error) {
		return "found", nil
	}))
	require.NoError(t, s.Get("/plain", ok))
	c := start(t, s)

	a := c.preflight("/todos", "https://app.example", httpx.MethodQuery, "content-type")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Equal(t, map[string]string{"Access-Control-Allow-Origin": "https://app.example",
		"Access-Control-Allow-Methods": "QUERY", "Access-Control-Allow-Headers": "content-type"}, a.cors())

	a = c.preflight("/plain", "https://app.example", httpx.MethodQuery)
	assert.Equal(t, http.StatusMethodNotAllowed, a.status)
	assert.Empty(t, a.cors())

	a = c.preflight("/todos", "https://evil.example", httpx.MethodQuery)
	assert.Empty(t, a.cors())

	a = c.send(httpx.MethodQuery, "/todos", strings.NewReader("milk"), "Origin", "https://app.example", "Content-Type", "text/plain")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "found", a.body)
	assert.Equal(t, "https://app.example", a.header.Get("Access-Control-Allow-Origin"))
}
