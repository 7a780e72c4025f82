package app_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

func TestClientIPInAMiddlewareByInject(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   []app.Option
		method string
		peer   string
		want   string
	}{
		{"no proxy trusted: the peer", nil, http.MethodGet, "10.0.0.2:1000", "10.0.0.2"},
		{"a trusted proxy: the forwarded client", []app.Option{app.WithTrustedProxies("10.0.0.0/8")}, http.MethodGet, "10.0.0.2:1000", "198.51.100.7"},
		{"an untrusted peer's header is ignored", []app.Option{app.WithTrustedProxies("10.0.0.0/8")}, http.MethodGet, "192.0.2.9:1000", "192.0.2.9"},
		{"a 405 through a trusted proxy", []app.Option{app.WithTrustedProxies("10.0.0.0/8")}, http.MethodDelete, "10.0.0.2:1000", "198.51.100.7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t, c.opts...)
			var seen netip.Addr
			s.Use(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					seen = app.ClientIP(r)
					next.ServeHTTP(w, r)
				})
			})
			s.Get("/", func() (string, error) { return "ok", nil })
			require.NoError(t, s.Ready())
			req := httptest.NewRequest(c.method, "/", nil)
			req.RemoteAddr = c.peer
			req.Header.Set("X-Forwarded-For", "198.51.100.7")
			apptest.Inject(t, s, req)
			assert.Equal(t, c.want, seen.String())
		})
	}
	// Outside Burrow's middleware: the peer.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	assert.Equal(t, "192.0.2.1", app.ClientIP(req).String())
}
