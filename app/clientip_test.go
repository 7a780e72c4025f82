package app_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// clientIPServer answers every request with its ClientIP.
func clientIPServer(t *testing.T, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	require.NoError(t, s.Get("/ip", func(req *httpx.Request) (string, error) { return req.ClientIP().String(), nil }))
	return s
}

func TestClientIPOverASocket(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   []app.Option
		header []string
		want   string
	}{
		{"no proxy trusted: the peer, whatever the header says", nil,
			[]string{"X-Forwarded-For", "198.51.100.7"}, "127.0.0.1"},
		{"an untrusted peer's forged header is ignored", []app.Option{app.WithTrustedProxies("10.0.0.0/8")},
			[]string{"X-Forwarded-For", "198.51.100.7"}, "127.0.0.1"},
		{"a trusted peer: the right-most untrusted hop", []app.Option{app.WithTrustedProxies("127.0.0.1/32", "10.0.0.0/8")},
			[]string{"X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.2"}, "198.51.100.7"},
		{"a trusted peer without the header", []app.Option{app.WithTrustedProxies("loopback")},
			nil, "127.0.0.1"},
		{"Forwarded is not read by default", []app.Option{app.WithTrustedProxies("loopback")},
			[]string{"Forwarded", "for=198.51.100.7"}, "127.0.0.1"},
		{"Forwarded when asked for", []app.Option{app.WithTrustedProxies("loopback"), app.WithClientIPHeader("forwarded")},
			[]string{"Forwarded", `for="[2001:db8::7]:4711";proto=https`, "X-Forwarded-For", "6.6.6.6"}, "2001:db8::7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			addr := serve(t, clientIPServer(t, c.opts...))
			req, err := http.NewRequest("GET", "http://"+addr+"/ip", nil)
			require.NoError(t, err)
			res, body := roundTrip(t, req, c.header...)
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, c.want, body)
		})
	}
}

func TestClientIPInTheAccessLog(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{false, true} {
		core, logs := observer.New(zapcore.InfoLevel)
		opts := []app.Option{app.WithLogger(zap.New(core))}
		if trusted {
			opts = append(opts, app.WithTrustedProxies("192.0.2.0/24"))
		}
		s := clientIPServer(t, opts...)
		require.NoError(t, s.Ready())
		req := httptest.NewRequest("GET", "/ip", nil) // from 192.0.2.1
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		_, err := s.Inject(req)
		require.NoError(t, err)
		lines := logs.FilterMessage("incoming request").All()
		require.Len(t, lines, 1)
		fields := lines[0].ContextMap()
		assert.Equal(t, "192.0.2.1:1234", fields["remoteAddress"], "the peer, the proxy that sent it")
		if trusted {
			assert.Equal(t, "198.51.100.7", fields["clientIp"])
		} else {
			assert.NotContains(t, fields, "clientIp", "no proxy trusted: the log is as before")
		}
	}
}

func TestBadClientIPOptionsFailReady(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opt  app.Option
		want string
	}{
		{app.WithTrustedProxies("10.0.0.0/33"), `app.WithTrustedProxies was given an invalid trusted proxy "10.0.0.0/33"`},
		{app.WithTrustedProxies("10.0.0.1", "proxy.internal"), `invalid trusted proxy "proxy.internal": not an address, a prefix`},
		{app.WithClientIPHeader("X-Real-IP"), `app.WithClientIPHeader was given "X-Real-IP", which is neither X-Forwarded-For nor Forwarded`},
	}
	for _, c := range cases {
		s := app.New(c.opt)
		err := s.Ready()
		require.ErrorIs(t, err, app.ErrInvalidOption)
		assert.Contains(t, err.Error(), c.want)
		assert.ErrorIs(t, s.Get("/", func() {}), app.ErrBootFailed, "the server is not usable")
	}
}

func TestClientIPWithoutProxiesIsThePeer(t *testing.T) {
	t.Parallel()
	s := clientIPServer(t)
	require.NoError(t, s.Ready())
	req := httptest.NewRequest("GET", "/ip", nil)
	req.RemoteAddr = "[::ffff:203.0.113.5]:80"
	res := apptest.Inject(t, s, req)
	assert.Equal(t, "203.0.113.5", res.Body, "an IPv4-mapped peer is unmapped")
	req.RemoteAddr = "@"
	assert.Equal(t, netip.Addr{}.String(), apptest.Inject(t, s, req).Body, "a Unix socket's peer has no address")
}

func TestClientIPInAMiddleware(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithTrustedProxies("192.0.2.0/24"))
	require.NoError(t, s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Client", app.ClientIP(r).String())
			next.ServeHTTP(w, r)
		})
	}))
	require.NoError(t, s.Get("/ip", func(req *httpx.Request) (string, error) { return req.ClientIP().String(), nil }))
	require.NoError(t, s.Ready())
	for _, path := range []string{"/ip", "/missing"} {
		req := httptest.NewRequest("GET", path, nil) // from 192.0.2.1
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		res := apptest.Inject(t, s, req)
		assert.Equal(t, "198.51.100.7", res.Header.Get("X-Client"), path)
	}
	req := httptest.NewRequest("POST", "/ip", nil)
	req.Header.Set("X-Forwarded-For", "198.51.100.8")
	assert.Equal(t, "198.51.100.8", apptest.Inject(t, s, req).Header.Get("X-Client"), "a 405 too")
	assert.Equal(t, "192.0.2.1", apptest.Get(t, s, "/ip").Body)

	outside := httptest.NewRequest("GET", "/", nil)
	outside.Header.Set("X-Forwarded-For", "198.51.100.7")
	assert.Equal(t, "192.0.2.1", app.ClientIP(outside).String(), "not Burrow's request: the peer")
}
