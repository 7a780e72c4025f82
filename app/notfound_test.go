package app_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func TestNotFoundHandlersByPrefix(t *testing.T) {
	tr := &trace{}
	// withAPI is a root with its own not-found handler and an /api context
	// with another one.
	withAPI := func() *app.Server {
		s := app.New()
		s.SetNotFoundHandler(func(req *httpx.Request, rep *httpx.Reply) error {
			return rep.Code(404).Send("root 404 " + req.URL().Path)
		})
		s.Register(func(api *app.Server) error {
			api.AddHook(app.OnRequest, tr.hook("api hook"))
			api.Get("/known", func() {})
			return api.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("api 404") })
		}, app.Prefix("/api"))
		return s
	}
	s := withAPI()
	s.Register(func(c *app.Server) error {
		return c.SetNotFoundHandler(func() {})
	}, app.Name("noprefix"))

	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler, "a context without a prefix cannot own a not-found handler")

	s = withAPI()
	tests := []struct{ path, body, hooks string }{
		{"/nope", "root 404 /nope", ""},
		{"/api/nope", "api 404", "api hook"},
		{"/api", "api 404", "api hook"},
		{"/apix", "root 404 /apix", ""},
	}
	for _, tt := range tests {
		status, body, _ := do(t, s, "GET", tt.path)
		assert.Equal(t, 404, status, tt.path)
		assert.Equal(t, tt.body, body, tt.path)
		assert.Equal(t, tt.hooks, tr.take(), tt.path)
	}
	status, _, h := do(t, s, "DELETE", "/api/known")
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, "GET, HEAD", h.Get("Allow"))
	assert.Equal(t, "", tr.take(), "405 is decided before any hook")
}

// TestNotFoundHandlerOfOnePrefixOnce: two contexts of one prefix each
// setting a not-found handler would answer each other's unknown paths, so
// Ready refuses the second, naming both. Under one prefix, the contexts
// cannot be each other's ancestors: a child's prefix is its own or longer.
func TestNotFoundHandlerOfOnePrefixOnce(t *testing.T) {
	t.Parallel()
	s := app.New()
	for _, name := range []string{"a", "b"} {
		s.Register(func(c *app.Server) error {
			return c.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send(name) })
		}, app.Name(name), app.Prefix("/api"))
	}
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrHandlerSet)
	assert.EqualError(t, err, "the not-found handler of root > b for /api is already set in root > a")

	s = app.New()
	s.Register(func(c *app.Server) error {
		return c.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("a") })
	}, app.Name("a"), app.Prefix("/api"))
	s.Register(func(c *app.Server) error { return c.Get("/b", func() {}) }, app.Name("b"), app.Prefix("/api"))
	require.NoError(t, s.Ready(), "one not-found handler for /api, however many contexts share it")
	_, body, _ := do(t, s, "GET", "/api/nope")
	assert.Equal(t, "a", body)
}

// The default 404 and 405 messages repeat the request target, but no
// more than its first 1 KiB: a long target would otherwise double what a
// client that never reads its answers pins.
func TestNotFoundAndNotAllowedEchoAtMost1KiB(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithMaxHeaderBytes(1 << 20)) // let 100 KiB targets reach the router
	s.Get("/known", func() (string, error) { return "ok", nil })
	addr := serve(t, s)
	long := strings.Repeat("a", 100<<10)
	tests := []struct {
		name, method, target string
		status               int
		message              string
	}{
		{"short 404", "GET", "/four?x=1", 404, "Route GET:/four?x=1 not found"},
		{"long 404", "GET", "/" + long, 404, "Route GET:/" + long[:1023] + "… not found"},
		{"long 405", "POST", "/known?q=" + long, 405, "Route POST:/known?q=" + long[:1024-len("/known?q=")] + "… not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rawExchange(t, addr, tt.method+" "+tt.target+" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
			require.Equal(t, tt.status, got.code)
			var body struct{ Message string }
			require.NoError(t, json.Unmarshal([]byte(got.body), &body))
			assert.Equal(t, tt.message, body.Message)
			assert.Less(t, len(got.body), 1200)
		})
	}
}
