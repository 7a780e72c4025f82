package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// sendTarget sends target over a real socket exactly as written: the
// client keeps a valid escaping as it is (url.URL.RawPath).
func sendTarget(t *testing.T, addr, target string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+target, nil)
	require.NoError(t, err)
	require.Equal(t, target, req.URL.RequestURI(), "the client would re-encode the target")
	res, b := roundTrip(t, req, header...)
	return res.StatusCode, b
}

// A static route guarded by bearer-auth must not be reachable through its
// public parameter sibling by percent-encoding a letter of it.
func TestEncodedPathCannotBypassAuth(t *testing.T) {
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("secret")))
		return s.Get("/users/me", func() (string, error) { return "private me", nil })
	}, app.Name("authenticatedContext"))
	s.Register(func(s *app.Server) error {
		return s.Get("/users/:id", func(req *httpx.Request) (string, error) { return "public " + req.Param("id"), nil })
	}, app.Name("publicContext"))
	addr := serve(t, s)

	tests := []struct {
		target string
		auth   string
		status int
		body   string
	}{
		{"/users/me", "", 401, ""},
		{"/users/%6De", "", 401, ""},
		{"/users/%6de", "", 401, ""},
		{"/users/%6D%65", "", 401, ""},
		{"/%75sers/me", "", 401, ""},
		{"/users/%6De", "Bearer secret", 200, "private me"},
		{"/users/ada", "", 200, "public ada"},
		{"/users/%61da", "", 200, "public ada"},
	}
	for _, tt := range tests {
		t.Run(tt.target+" "+tt.auth, func(t *testing.T) {
			var header []string
			if tt.auth != "" {
				header = []string{"Authorization", tt.auth}
			}
			status, body := sendTarget(t, addr, tt.target, header...)
			assert.Equal(t, tt.status, status, body)
			if tt.body != "" {
				assert.Equal(t, tt.body, body)
			}
		})
	}
}

// echoRoute answers with the pattern it matched and its parameters, so
// that tests can compare where two encodings of a path land.
func echoRoute(req *httpx.Request) (string, error) {
	var b strings.Builder
	b.WriteString(req.Route().Path)
	for _, p := range req.Params() {
		b.WriteString(" " + p.Key + "=" + p.Value)
	}
	return b.String(), nil
}

func pathApp(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	echo := echoRoute
	for _, p := range []string{"/two", "/café", "/users/me", "/users/:id", "/a/b", "/a/:x", "/:name", "/files/*"} {
		require.NoError(t, s.Get(p, echo))
	}
	require.NoError(t, s.Delete("/two", echo))
	require.NoError(t, s.SetNotFoundHandler(func(rep *httpx.Reply) error {
		return rep.Code(404).Send("root not found")
	}))
	s.Register(func(api *app.Server) error {
		api.Get("/v1/users", echo)
		return api.SetNotFoundHandler(func(rep *httpx.Reply) error { return rep.Code(404).Send("api not found") })
	}, app.Prefix("/api"))
	require.NoError(t, s.Ready())
	return s
}

func TestPathMatchesItsDecodedSegments(t *testing.T) {
	t.Parallel()
	s := pathApp(t)
	checkGets(t, s, []getCase{
		{"an encoded letter", "/%74wo", 200, "/two"},
		{"every letter encoded", "/%74%77%6F", 200, "/two"},
		{"upper-case escapes of a non-ASCII route", "/caf%C3%A9", 200, "/café"},
		{"lower-case escapes of a non-ASCII route", "/caf%c3%a9", 200, "/café"},
		{"mixed-case escapes", "/caf%c3%A9", 200, "/café"},
		{"static beats parameter after decoding", "/users/%6De", 200, "/users/me"},
		{"second static segment encoded", "/a/%62", 200, "/a/b"},
		{"parameter value decoded", "/users/%61%64a", 200, "/users/:id id=ada"},
		{"encoded slash stays in the parameter", "/users/a%2Fb", 200, "/users/:id id=a/b"},
		{"lower-case encoded slash", "/users/a%2fb", 200, "/users/:id id=a/b"},
		{"encoded slash never matches a static separator", "/a%2Fb", 200, "/:name name=a/b"},
		{"encoded slash inside a static-looking segment", "/a%2F%62", 200, "/:name name=a/b"},
		{"encoded percent", "/users/100%25", 200, "/users/:id id=100%"},
		{"wildcard decoded, encoded slash included", "/files/x%2Fy/%7A", 200, "/files/* *=x/y/z"},
		{"encoded space in a parameter", "/users/a%20b", 200, "/users/:id id=a b"},
		{"parameter at the limit, decoded length", "/users/" + strings.Repeat("%61", 100), 200, "/users/:id id=" + strings.Repeat("a", 100)},
		{"parameter over the limit, decoded length", "/users/" + strings.Repeat("%61", 101), 404, "root not found"},
		{"not-found prefix reached through an escape", "/%61pi/nope", 404, "api not found"},
		{"not-found prefix itself escaped", "/%61pi/", 404, "api not found"},
		{"prefixed route reached through escapes", "/%61pi/v1/%75sers", 200, "/api/v1/users"},
		{"encoded slash does not enter a prefix", "/api%2Fnope/x", 404, "root not found"},
		{"encoded slash after a prefix", "/api/v1%2Fusers", 404, "api not found"},
	})
}

func TestMethodNotAllowedOnEncodedPath(t *testing.T) {
	t.Parallel()
	s := pathApp(t)
	for _, target := range []string{"/two", "/%74wo", "/%74%77%6f"} {
		status, body, header := do(t, s, "POST", target)
		assert.Equal(t, http.StatusMethodNotAllowed, status, target)
		assert.Equal(t, "DELETE, GET, HEAD", header.Get("Allow"), target)
		assert.Contains(t, body, "Route POST:"+target+" not allowed")
	}
}

// A malformed escape can only reach the server through a hand-built
// request (net/http refuses it on the wire): it is 400 wherever it is,
// as in Fastify, not only inside a parameter.
func TestMalformedEscapeIsBadRequest(t *testing.T) {
	t.Parallel()
	s := pathApp(t)
	for _, raw := range []string{"/users/%zz", "/%zzwo", "/files/a/%", "/a/%4", "/%zz/b/c"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = &url.URL{Path: "/whatever", RawPath: raw}
		res, err := s.Inject(req)
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, raw)
		assert.Equal(t, `{"statusCode":400,"code":"FST_ERR_BAD_URL","error":"Bad Request","message":"'`+raw+`' is not a valid url component"}`, string(b))
	}
}

// A RawPath that is not an encoding of Path (a middleware rewrote Path
// and left RawPath behind) is ignored, as url.URL.EscapedPath does: the
// route is chosen by Path.
func TestStaleRawPathIsIgnored(t *testing.T) {
	t.Parallel()
	s := pathApp(t)
	req := httptest.NewRequest("GET", "/", nil)
	req.URL = &url.URL{Path: "/users/me", RawPath: "/users/%61da"}
	res, err := s.Inject(req)
	require.NoError(t, err)
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "/users/me", string(b))
}

func TestRouteParamAbuse(t *testing.T) {
	s := app.New()
	s.Get("/u/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	s.Get("/files/*", func(req *httpx.Request) (string, error) { return req.Param("*"), nil })
	addr := serve(t, s)
	tests := []struct {
		name, path string
		status     int
		body       string
	}{
		{"param at the limit", "/u/" + strings.Repeat("x", 100), 200, strings.Repeat("x", 100)},
		{"param over the limit", "/u/" + strings.Repeat("x", 101), 404, ""},
		{"escaped slash stays in the param", "/u/a%2Fb", 200, "a/b"},
		{"bad escape", "/u/%zz", 400, ""},
		{"10,000 segments", "/files" + strings.Repeat("/s", 10000), 200, strings.TrimPrefix(strings.Repeat("/s", 10000), "/")},
		{"10,000 segments on a fixed route", "/u" + strings.Repeat("/s", 10000), 404, ""},
		{"double slash", "/u//x", 404, ""},
		{"dot segment", "/u/./x", 404, ""},
		{"trailing slash", "/u/x/", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := rawGet(t, addr, tt.path)
			assert.Equal(t, tt.status, status.code)
			if tt.body != "" {
				assert.Equal(t, tt.body, status.body)
			}
		})
	}
	// A path over the header limit never reaches the router.
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, rawGet(t, addr, "/u/"+strings.Repeat("x", 2<<20)).code)
}

// rawGet sends path as is (no client-side cleaning) and reads the answer.
func rawGet(t *testing.T, addr, path string) answer {
	return rawExchange(t, addr, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
}
