package bearer_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

const (
	missing  = `{"error":"missing authorization header"}`
	invalid  = `{"error":"invalid authorization header"}`
	multiple = `{"error":"multiple authorization headers"}`
)

func ok() (string, error) { return "ok", nil }

// newApp protects "authenticatedContext" (and its child "nested") and
// leaves its sibling "publicContext" open.
func newApp(t testing.TB, opts []app.Option, bearerOpts ...bearer.Option) *app.Server {
	s := app.New(opts...)
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearerOpts...))
		s.Get("/private", ok)
		return s.Register(func(s *app.Server) error { return s.Get("/nested", ok) }, app.Name("nested"))
	}, app.Name("authenticatedContext"))
	s.Register(func(s *app.Server) error { return s.Get("/public", ok) }, app.Name("publicContext"))
	require.NoError(t, s.Ready())
	return s
}

// inject sends GET path with an authorization header for each of auth.
func inject(t testing.TB, s *app.Server, path string, auth ...string) (int, string, http.Header) {
	t.Helper()
	var header []string
	for _, a := range auth {
		header = append(header, "Authorization", a)
	}
	res := apptest.Get(t, s, path, header...)
	return res.StatusCode, res.Body, res.Header
}

func TestVerify(t *testing.T) {
	t.Parallel()
	s := newApp(t, nil, bearer.Keys("k1", "second-key"))
	tests := []struct {
		name      string
		auth      []string
		status    int
		body      string
		challenge string
	}{
		{"no header", nil, 401, missing, "Bearer"},
		{"empty header", []string{""}, 401, missing, "Bearer"},
		{"right key", []string{"Bearer k1"}, 200, "ok", ""},
		{"second key", []string{"Bearer second-key"}, 200, "ok", ""},
		{"wrong key", []string{"Bearer wrong"}, 401, invalid, `Bearer error="invalid_token"`},
		{"prefix of a key", []string{"Bearer k"}, 401, invalid, `Bearer error="invalid_token"`},
		{"key with a suffix", []string{"Bearer k1x"}, 401, invalid, `Bearer error="invalid_token"`},
		{"lower-case scheme", []string{"bearer k1"}, 200, "ok", ""},
		{"upper-case scheme", []string{"BEARER k1"}, 200, "ok", ""},
		{"basic scheme", []string{"Basic k1"}, 401, invalid, `Bearer error="invalid_token"`},
		{"scheme alone", []string{"Bearer"}, 401, invalid, `Bearer error="invalid_token"`},
		{"scheme and space", []string{"Bearer "}, 401, invalid, `Bearer error="invalid_token"`},
		{"no space", []string{"Bearerk1"}, 401, invalid, `Bearer error="invalid_token"`},
		{"extra spaces", []string{"Bearer   k1"}, 200, "ok", ""},
		{"trailing spaces", []string{"Bearer k1   "}, 200, "ok", ""},
		{"two headers", []string{"Bearer k1", "Bearer k1"}, 400, multiple, `Bearer error="invalid_request"`},
	}
	for _, tt := range tests {
		for _, path := range []string{"/private", "/nested"} {
			t.Run(tt.name+path, func(t *testing.T) {
				status, body, h := inject(t, s, path, tt.auth...)
				assert.Equal(t, tt.status, status)
				assert.Equal(t, tt.body, body)
				assert.Equal(t, tt.challenge, h.Get("Www-Authenticate"))
				if status != 200 {
					assert.Equal(t, "application/json; charset=utf-8", h.Get("Content-Type"))
					assert.Equal(t, fmt.Sprint(len(tt.body)), h.Get("Content-Length"))
				}
			})
		}
	}
}

func TestSiblingIsNotProtected(t *testing.T) {
	t.Parallel()
	s := newApp(t, nil, bearer.Keys("k1"))
	for _, auth := range [][]string{nil, {"Bearer wrong"}, {"Basic x"}, {"a", "b"}} {
		status, body, _ := inject(t, s, "/public", auth...)
		assert.Equal(t, 200, status, "%v", auth)
		assert.Equal(t, "ok", body)
	}
}

func TestOverRealHTTP(t *testing.T) {
	t.Parallel()
	s := newApp(t, nil, bearer.Keys("k1"))
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, tt := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Bearer k1", 200}, {"Bearer no", 401}} {
		req, err := http.NewRequest("GET", srv.URL+"/private", nil)
		require.NoError(t, err)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, tt.status, res.StatusCode, tt.auth)
	}
}

func TestCustomScheme(t *testing.T) {
	t.Parallel()
	s := newApp(t, nil, bearer.Keys("k1"), bearer.Scheme("Token"))
	status, _, _ := inject(t, s, "/private", "Token k1")
	assert.Equal(t, 200, status)
	status, body, h := inject(t, s, "/private", "Bearer k1")
	assert.Equal(t, 401, status)
	assert.Equal(t, invalid, body)
	assert.Equal(t, `Token error="invalid_token"`, h.Get("Www-Authenticate"))
}

func TestKeysNeverLogged(t *testing.T) {
	t.Parallel()
	keys := []string{"very-secret-key-1", "very-secret-key-2"}
	sent := []string{"Bearer very-secret-key-1", "Bearer wrong-secret-guess", "bearer very-secret-key-2", "Basic very-secret-key-1"}
	for _, mode := range []string{"hook", "verify"} {
		t.Run(mode, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			s.Register(func(s *app.Server) error {
				if mode == "hook" {
					s.Register(bearer.Plugin(bearer.Keys(keys...), bearer.ExposeIdentity("who")))
					return s.Get("/private", ok)
				}
				s.Register(bearer.Plugin(bearer.Keys(keys...), bearer.Manual()))
				return s.Get("/private", ok, app.WithHook(app.OnRequest,
					func(v *bearer.Verifier, req *httpx.Request, rep *httpx.Reply) error { return v.Verify(req, rep) }))
			})
			for _, a := range sent {
				inject(t, s, "/private", a)
			}
			inject(t, s, "/private")
			inject(t, s, "/private", sent[0], sent[1])
			require.NotZero(t, logs.Len(), "the requests were logged")
			failures := 0
			for _, e := range logs.All() {
				text := e.Message + fmt.Sprint(e.ContextMap())
				for _, secret := range append(keys, "wrong-secret-guess") {
					assert.NotContains(t, text, secret)
				}
				if strings.HasPrefix(e.Message, "unauthorized: ") {
					failures++
					assert.Equal(t, zapcore.DebugLevel, e.Level, "failures log at debug by default, as every 4xx")
				}
			}
			assert.Equal(t, 4, failures, "wrong key, Basic, missing and multiple")
		})
	}
}

// A refused request is the client's mistake, not the server's: however
// many arrive, none is logged at error level or with a stack, whether
// the plugin's hook answers or Verify's error goes to the error handler.
func TestRefusalsAreNotErrors(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"hook", "verify"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			// As zap's production logger: a stack on every error-level line.
			s := app.New(app.WithLogger(zap.New(core, zap.AddStacktrace(zapcore.ErrorLevel))))
			s.Register(func(s *app.Server) error {
				if mode == "hook" {
					s.Register(bearer.Plugin(bearer.Keys("k1")))
					return s.Get("/private", ok)
				}
				s.Register(bearer.Plugin(bearer.Keys("k1"), bearer.Manual()))
				return s.Get("/private", ok, app.WithHook(app.OnRequest,
					func(v *bearer.Verifier, req *httpx.Request, rep *httpx.Reply) error { return v.Verify(req, rep) }))
			})
			refused := [][]string{{}, {"Bearer wrong"}, {"Basic k1"}, {"Bearer"}, {"Bearer k1", "Bearer k1"}}
			for i := range 100 {
				status, _, _ := inject(t, s, "/private", refused[i%len(refused)]...)
				require.Contains(t, []int{400, 401}, status)
			}
			unauthorized := 0
			for _, e := range logs.All() {
				assert.Less(t, e.Level, zapcore.ErrorLevel, "%s", e.Message)
				assert.Empty(t, e.Stack, "%s", e.Message)
				if strings.HasPrefix(e.Message, "unauthorized: ") {
					unauthorized++
				}
			}
			assert.Equal(t, 100, unauthorized, "each refusal is still logged, with its reason")
		})
	}
}

func TestLogLevelOption(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	s := newApp(t, []app.Option{app.WithLogger(zap.New(core))}, bearer.Keys("k1"), bearer.LogLevel(zapcore.WarnLevel))
	inject(t, s, "/private", "Bearer nope")
	found := logs.FilterMessageSnippet("unauthorized").All()
	require.Len(t, found, 1)
	assert.Equal(t, zapcore.WarnLevel, found[0].Level)
	assert.Equal(t, "unauthorized: invalid authorization header", found[0].Message)
}

func TestHandlerNotReachedOnFailure(t *testing.T) {
	t.Parallel()
	reached := 0
	s := app.New()
	s.Register(bearer.Plugin(bearer.Keys("k1")))
	s.Get("/", func(rep *httpx.Reply) error { reached++; return rep.Send("in") })
	status, _, _ := inject(t, s, "/", "Bearer wrong")
	assert.Equal(t, 401, status)
	assert.Zero(t, reached)
	status, _, _ = inject(t, s, "/", "Bearer k1")
	assert.Equal(t, 200, status)
	assert.Equal(t, 1, reached)
}

// Not parallel: testing.AllocsPerRun counts the whole process's
// allocations. Exposing the identity to the request costs no allocation:
// the decorator's values are made once, one per key.
func TestExposedIdentityCostsNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector")
	}
	allocs := func(opts ...bearer.Option) float64 {
		s := app.New(app.WithLogger(zap.NewNop()), app.WithoutRequestLogging())
		s.Register(bearer.Plugin(append(opts, bearer.Keys("k1", "k2"))...))
		s.Get("/", func(*httpx.Request) (any, error) { return nil, nil })
		require.NoError(t, s.Ready())
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Bearer k2")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req) // warm the pools
		require.Equal(t, http.StatusOK, w.Code)
		return testing.AllocsPerRun(100, func() { s.ServeHTTP(w, req) })
	}
	assert.Equal(t, allocs(), allocs(bearer.ExposeIdentity("who")))
}
