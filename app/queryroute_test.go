package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type todoFilter struct {
	Text  string `json:"text" validate:"required"`
	Limit int    `json:"limit" validate:"max=10"`
}

type searchIn struct {
	app.In
	Search todoFilter `body:""`
}

// TestQueryRouteReadsItsBody: a QUERY route registered with QueryRoute
// decodes and validates its body as a POST's, answers over a real
// socket, and gets no HEAD twin; GET on its path is a 405 naming QUERY.
func TestQueryRouteReadsItsBody(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.QueryRoute(s, "/todos", func(_ context.Context, in searchIn) ([]string, error) {
		out := []string{}
		for i := range in.Search.Limit {
			out = append(out, in.Search.Text+strings.Repeat("!", i))
		}
		return out, nil
	}))
	base := apptest.Serve(t, s)
	send := func(method, body string) *http.Response {
		req, err := http.NewRequest(method, base+"/todos", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	for _, tc := range []struct {
		name, method, body string
		status             int
	}{
		{"a query", httpx.MethodQuery, `{"text":"a","limit":2}`, 200},
		{"a body that fails its rules", httpx.MethodQuery, `{"limit":2}`, 400},
		{"a body over a limit", httpx.MethodQuery, `{"text":"a","limit":11}`, 400},
		{"no HEAD twin", http.MethodHead, ``, 405},
		{"no GET", http.MethodGet, ``, 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := send(tc.method, tc.body)
			assert.Equal(t, tc.status, res.StatusCode)
			if tc.status == 405 {
				assert.Equal(t, "QUERY", res.Header.Get("Allow"))
			}
		})
	}
	res := apptest.Do(t, s, httpx.MethodQuery, "/todos", strings.NewReader(`{"text":"a","limit":2}`), "Content-Type", "application/json")
	assert.JSONEq(t, `["a","a!"]`, res.Body)
}

// TestQueryRouteIsDescribed: RouteInfo lists a QUERY route with its
// method and body, and no HEAD twin.
func TestQueryRouteIsDescribed(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.QueryRoute(s, "/todos", func(context.Context, searchIn) ([]string, error) { return nil, nil }))
	require.NoError(t, s.Ready())
	routes := s.Routes()
	require.Len(t, routes, 1)
	assert.Equal(t, "QUERY", routes[0].Method)
	assert.Equal(t, "queryTodos", routes[0].OperationID)
	assert.Equal(t, "todoFilter", routes[0].Body.Name())
}
