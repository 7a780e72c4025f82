package csrf_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/csrf"
)

// serve starts a server whose /cookie context is guarded by the plugin
// (opts), beside an unguarded /open context, over a real socket.
func serve(t *testing.T, opts ...csrf.Option) *httptest.Server {
	t.Helper()
	s := app.New()
	ok := func(*httpx.Reply) error { return nil }
	s.Register(func(s *app.Server) error {
		s.Register(csrf.Plugin(opts...))
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			s.Route(m, "/cookie", ok)
		}
		return nil
	})
	s.Register(func(s *app.Server) error { return s.Post("/open", ok) })
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, srv *httptest.Server, method, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	require.NoError(t, err)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	return res, body
}

func TestFetchMetadataAndOrigin(t *testing.T) {
	t.Parallel()
	srv := serve(t, csrf.TrustedOrigins("https://admin.example"))
	host := srv.Listener.Addr().String()
	cases := []struct {
		name   string
		method string
		header map[string]string
		want   int
	}{
		{"no header", "POST", nil, 200},
		{"same-origin", "POST", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"none (typed address)", "POST", map[string]string{"Sec-Fetch-Site": "none"}, 200},
		{"cross-site", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site", "POST", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"cross-site PUT", "PUT", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site PATCH", "PATCH", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site DELETE", "DELETE", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site GET", "GET", map[string]string{"Sec-Fetch-Site": "cross-site"}, 200},
		{"cross-site HEAD", "HEAD", map[string]string{"Sec-Fetch-Site": "cross-site"}, 200},
		{"cross-site OPTIONS", "OPTIONS", map[string]string{"Sec-Fetch-Site": "cross-site"}, 200},
		{"cross-site from a trusted origin", "POST", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://admin.example"}, 200},
		{"cross-site, trusted origin on another port", "POST", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://admin.example:8443"}, 403},
		{"Origin of the Host, no metadata", "POST", map[string]string{"Origin": "http://" + host}, 200},
		{"Origin of another host, no metadata", "POST", map[string]string{"Origin": "https://evil.example"}, 403},
		{"Origin null, no metadata", "POST", map[string]string{"Origin": "null"}, 403},
		{"Origin of a look-alike host", "POST", map[string]string{"Origin": "http://" + host + ".evil.example"}, 403},
		{"trusted Origin, no metadata", "POST", map[string]string{"Origin": "https://admin.example"}, 200},
		{"metadata wins over a matching Origin", "POST", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://" + host}, 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, _ := do(t, srv, c.method, "/cookie", c.header)
			assert.Equal(t, c.want, res.StatusCode)
		})
	}
}

func TestRefusalIsBurrowsErrorBody(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	res, body := do(t, srv, "POST", "/cookie", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, map[string]any{
		"statusCode": float64(403), "code": csrf.Code, "error": "Forbidden", "message": "cross-origin request refused",
	}, got)
	assert.NotContains(t, string(body), "evil.example", "the answer repeats nothing the client sent")
}

func TestOnlyTheRegisteringContextIsGuarded(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	res, _ := do(t, srv, "POST", "/open", map[string]string{"Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusOK, res.StatusCode, "a sibling context is not guarded")
}

func TestExemptPassesRequestsWithoutAmbientCredentials(t *testing.T) {
	t.Parallel()
	bearer := func(req *httpx.Request) bool { return req.Header("Authorization") != "" }
	srv := serve(t, csrf.Exempt(bearer))
	res, _ := do(t, srv, "DELETE", "/cookie", map[string]string{"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer k"})
	assert.Equal(t, http.StatusOK, res.StatusCode)
	res, _ = do(t, srv, "DELETE", "/cookie", map[string]string{"Sec-Fetch-Site": "cross-site", "Cookie": "s=1"})
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
}

func TestTheHookRunsBeforeTheBodyIsRead(t *testing.T) {
	t.Parallel()
	type in struct {
		app.In
		Body struct {
			X int `json:"x"`
		} `body:""`
	}
	s := app.New()
	s.Register(csrf.Plugin())
	handled := false
	app.Post(s, "/", func(_ context.Context, _ in) (app.NoContent, error) { handled = true; return app.NoContent{}, nil })
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	req, err := http.NewRequest("POST", srv.URL, errReader{})
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.ContentLength = 10
	res, err := srv.Client().Do(req)
	if err == nil {
		assert.Equal(t, http.StatusForbidden, res.StatusCode)
		res.Body.Close()
	}
	assert.False(t, handled)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("the body was read") }

func TestInvalidOptionsFailRegister(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]csrf.Option{
		"origin with a path": csrf.TrustedOrigins("https://a.example/x"),
		"not an origin":      csrf.TrustedOrigins("a.example"),
		"nil exempt":         csrf.Exempt(nil),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			err := s.Register(csrf.Plugin(opt))
			require.Error(t, err)
			var pe *app.PluginError
			assert.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), "csrf")
			assert.Error(t, s.Ready())
		})
	}
}
