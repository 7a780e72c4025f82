package bearer_test

import (
	"errors"
	"fmt"
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

func TestStrictScheme(t *testing.T) {
	t.Parallel()
	lenient := newApp(t, nil, bearer.Keys("k1"))
	strict := newApp(t, nil, bearer.Keys("k1"), bearer.CaseSensitive())
	tests := []struct {
		auth           string
		lenient, exact int
	}{
		{"Bearer k1", 200, 200},
		{"bearer k1", 200, 401},
		{"BEARER k1", 200, 401},
		{"BeArEr k1", 200, 401},
		{"Basic k1", 401, 401},
	}
	for _, tt := range tests {
		t.Run(tt.auth, func(t *testing.T) {
			status, _, _ := inject(t, lenient, "/private", tt.auth)
			assert.Equal(t, tt.lenient, status, "default: case-insensitive")
			status, body, _ := inject(t, strict, "/private", tt.auth)
			assert.Equal(t, tt.exact, status, "strict: case-sensitive")
			if tt.exact == 401 {
				assert.Equal(t, invalid, body)
			}
		})
	}
}

func TestAuthFunction(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	auth := func(key string, req *httpx.Request) (bool, error) {
		switch {
		case key == "boom":
			return false, errors.New("token store unreachable")
		case key == "tenant-key":
			return req.Raw().Header.Get("X-Tenant") == "acme", nil
		}
		return false, nil
	}
	s := newApp(t, []app.Option{app.WithLogger(zap.New(core))}, bearer.Auth(auth))
	tests := []struct {
		name   string
		auth   string
		tenant string
		status int
		body   string
	}{
		{"accepted for its tenant", "Bearer tenant-key", "acme", 200, "ok"},
		{"refused for another tenant", "Bearer tenant-key", "other", 401, invalid},
		{"unknown key", "Bearer nope", "acme", 401, invalid},
		{"missing", "", "acme", 401, missing},
		{"auth error", "Bearer boom", "acme", 500, `{"error":"internal server error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := []string{"X-Tenant", tt.tenant}
			if tt.auth != "" {
				header = append(header, "Authorization", tt.auth)
			}
			res := apptest.Get(t, s, "/private", header...)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.body, res.Body)
		})
	}
	logged := logs.FilterMessage("bearer auth check failed").All()
	require.Len(t, logged, 1, "the Auth error is logged, not sent")
	assert.Contains(t, fmt.Sprint(logged[0].ContextMap()), "token store unreachable")
}

func TestErrorResponseAndContentType(t *testing.T) {
	t.Parallel()
	s := newApp(t, nil, bearer.Keys("k1"),
		bearer.ContentType("application/problem+json"),
		bearer.ErrorResponse(func(err error) any {
			var he *httpx.Error
			if !errors.As(err, &he) {
				return "not an httpx.Error"
			}
			return map[string]any{"title": he.Message, "status": he.StatusCode, "code": he.Code}
		}))
	status, body, h := inject(t, s, "/private")
	assert.Equal(t, 401, status)
	assert.Equal(t, `{"code":"FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER","status":401,"title":"missing authorization header"}`, body)
	assert.Equal(t, "application/problem+json", h.Get("Content-Type"))
	assert.Equal(t, "Bearer", h.Get("Www-Authenticate"))

	status, body, _ = inject(t, s, "/private", "Bearer bad")
	assert.Equal(t, 401, status)
	assert.Contains(t, body, `"title":"invalid authorization header"`)

	status, body, h = inject(t, s, "/private", "Bearer k1")
	assert.Equal(t, 200, status, "the content type applies to failures only")
	assert.Equal(t, "ok", body)
	assert.Equal(t, "text/plain; charset=utf-8", h.Get("Content-Type"))
}

// With Manual the plugin installs nothing: the context's routes
// are open unless they attach the verifier, which the plugin provides as
// a service. Failures go through the error handler with Fastify's codes.
func TestManualGuardsChosenRoutesOnly(t *testing.T) {
	t.Parallel()
	manual := bearer.Manual()
	verify := func(v *bearer.Verifier, req *httpx.Request, rep *httpx.Reply) error { return v.Verify(req, rep) }
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k1"), manual))
		s.Get("/open", ok)
		return s.Get("/guarded", ok, app.WithHook(app.PreHandler, verify))
	}, app.Name("api"))
	tests := []struct {
		path, auth string
		status     int
		body       string
		challenge  string
	}{
		{"/open", "", 200, "ok", ""},
		{"/guarded", "Bearer k1", 200, "ok", ""},
		{"/guarded", "", 401, `{"statusCode":401,"code":"FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER","error":"Unauthorized","message":"missing authorization header"}`, "Bearer"},
		{"/guarded", "Bearer nope", 401, `{"statusCode":401,"code":"FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER","error":"Unauthorized","message":"invalid authorization header"}`, `Bearer error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.auth, func(t *testing.T) {
			status, body, h := inject(t, s, tt.path, nonEmpty(tt.auth)...)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.body, body)
			assert.Equal(t, tt.challenge, h.Get("Www-Authenticate"))
		})
	}
}

func TestVerifierFromNewWithAnErrorHandler(t *testing.T) {
	t.Parallel()
	v, err := bearer.New(bearer.Keys("k1"))
	require.NoError(t, err)
	s := app.New()
	s.SetErrorHandler(func(err error, rep *httpx.Reply) error {
		var he *httpx.Error
		require.True(t, errors.As(err, &he))
		return rep.Code(he.StatusCode).Send("denied: " + he.Code)
	})
	s.Get("/admin", ok, app.WithHook(app.OnRequest, v.Verify))
	s.Get("/", ok)
	status, body, _ := inject(t, s, "/admin", "Bearer x")
	assert.Equal(t, 401, status)
	assert.Equal(t, "denied: "+bearer.CodeInvalid, body)
	status, _, _ = inject(t, s, "/admin", "Bearer k1")
	assert.Equal(t, 200, status)
	status, _, _ = inject(t, s, "/")
	assert.Equal(t, 200, status)
}

func TestExposeIdentity(t *testing.T) {
	t.Parallel()
	type caller struct {
		app.In
		Who bearer.Identity `name:"caller"`
	}
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("first", "second"), bearer.ExposeIdentity("caller")))
		return s.Get("/whoami", func(c caller) (string, error) {
			return fmt.Sprintf("%d %v", c.Who.Index, c.Who.Authenticated), nil
		})
	}, app.Name("api"))
	for key, want := range map[string]string{"first": "0 true", "second": "1 true"} {
		status, body, _ := inject(t, s, "/whoami", "Bearer "+key)
		assert.Equal(t, 200, status)
		assert.Equal(t, want, body, key)
	}
}

// ExposeIdentity needs a decorator that bearer.Plugin declares. With
// Manual the plugin still declares it next to the Verifier it
// provides, so a hand-placed Verify sees it; a Verifier built by New has
// nowhere to declare it, so New refuses the option instead of answering
// every valid key with 500.
func TestExposeIdentityWithAHandPlacedVerify(t *testing.T) {
	t.Parallel()
	type caller struct {
		app.In
		Who bearer.Identity `name:"who"`
	}
	whoami := func(c caller) (string, error) { return fmt.Sprintf("%d %v", c.Who.Index, c.Who.Authenticated), nil }
	verify := func(v *bearer.Verifier, req *httpx.Request, rep *httpx.Reply) error { return v.Verify(req, rep) }

	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k0", "k1"), bearer.Manual(), bearer.ExposeIdentity("who")))
		return s.Get("/whoami", whoami, app.WithHook(app.OnRequest, verify))
	}, app.Name("api"))
	status, body, _ := inject(t, s, "/whoami", "Bearer k1")
	assert.Equal(t, 200, status)
	assert.Equal(t, "1 true", body)

	_, err := bearer.New(bearer.Keys("k1"), bearer.ExposeIdentity("who"))
	require.ErrorIs(t, err, bearer.ErrIdentityNeedsPlugin)
	assert.EqualError(t, err, `bearer.ExposeIdentity needs bearer.Plugin, which declares the request decorator "who"; `+
		`register bearer.Plugin(…, bearer.Manual()) and take the *bearer.Verifier it provides where you attach Verify`)
}

func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	auth := func(string, *httpx.Request) (bool, error) { return true, nil }
	tests := []struct {
		name string
		opts []bearer.Option
		msg  string
	}{
		{"no keys", nil, "no bearer keys configured: give bearer.Keys, bearer.Auth or bearer.Store"},
		{"empty key", []bearer.Option{bearer.Keys("k1", "")}, "bearer.Keys: empty key"},
		{"keys and auth", []bearer.Option{bearer.Keys("k1"), bearer.Auth(auth)}, "bearer.Keys, bearer.Auth and bearer.Store are exclusive"},
		{"nil auth", []bearer.Option{bearer.Auth(nil)}, "bearer.Auth: nil function"},
		{"empty scheme", []bearer.Option{bearer.Keys("k1"), bearer.Scheme("")}, `bearer.Scheme: invalid scheme ""`},
		{"scheme with a space", []bearer.Option{bearer.Keys("k1"), bearer.Scheme("a b")}, `bearer.Scheme: invalid scheme "a b"`},
		{"empty content type", []bearer.Option{bearer.Keys("k1"), bearer.ContentType(" ")}, `bearer.ContentType: invalid content type " "`},
		{"content type with a newline", []bearer.Option{bearer.Keys("k1"), bearer.ContentType("a\r\nb")}, `bearer.ContentType: invalid content type "a\r\nb"`},
		{"nil error response", []bearer.Option{bearer.Keys("k1"), bearer.ErrorResponse(nil)}, "bearer.ErrorResponse: nil function"},
		{"empty identity", []bearer.Option{bearer.Keys("k1"), bearer.ExposeIdentity("")}, "bearer.ExposeIdentity: empty decorator name"},
		{"log level", []bearer.Option{bearer.Keys("k1"), bearer.LogLevel(zapcore.Level(42))}, "bearer.LogLevel: invalid level 42"},
		{"two bad options: the first is reported", []bearer.Option{bearer.Keys("", ""), bearer.Scheme("")}, "bearer.Keys: empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bearer.New(tt.opts...)
			require.Error(t, err)
			assert.EqualError(t, err, tt.msg)

			s := app.New()
			var registerErr error
			s.Register(func(s *app.Server) error {
				registerErr = s.Register(bearer.Plugin(tt.opts...))
				return registerErr
			}, app.Name("authenticatedContext"))
			err = s.Ready()
			assert.Equal(t, err, registerErr, "Register refuses the plugin; Ready reports it")
			require.Error(t, err)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, bearer.PluginName, pe.Plugin)
			assert.Equal(t, "root > authenticatedContext", pe.Context, "wrapped: it loads into the registering context")
			assert.EqualError(t, err, "plugin bearer-auth (root > authenticatedContext) is invalid: "+tt.msg)
			if tt.opts == nil {
				assert.ErrorIs(t, err, bearer.ErrNoKeys)
			}
		})
	}
}

func TestRegisteredTwiceInOneContext(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(bearer.Plugin(bearer.Keys("k1")))
	s.Register(bearer.Plugin(bearer.Keys("k2")))
	assert.ErrorIs(t, s.Ready(), app.ErrDuplicatePlugin)
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// TestSchemeIsAToken: an auth-scheme is an RFC 9110 token, so Scheme
// refuses a name with any byte that is not a tchar (letters, digits and
// !#$%&'*+-.^_`|~): no client could send it as a scheme.
func TestSchemeIsAToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scheme string
		ok     bool
	}{
		{"Bearer", true},
		{"Token", true},
		{"X-Api-Key", true},
		{"DPoP", true},
		{"SCRAM-SHA-256", true},
		{"a1!#$%&'*+-.^_`|~Z", true},
		{"", false},
		{"a b", false},
		{"a\tb", false},
		{"Bearer\r\n", false},
		{"a,b", false},
		{`"Bearer"`, false},
		{"(Bearer)", false},
		{"Bearer/1", false},
		{"Bearer:", false},
		{"Bearer=", false},
		{"user@Bearer", false},
		{"<Bearer>", false},
		{"[Bearer]", false},
		{"{Bearer}", false},
		{"Bearer;", false},
		{"Bearer?", false},
		{`Bear\er`, false},
		{"Béarer", false},
		{"Bearer\x00", false},
		{"Bearer\x7f", false},
		{"Bearer\x80", false},
	}
	for _, tt := range tests {
		t.Run(tt.scheme, func(t *testing.T) {
			t.Parallel()
			_, err := bearer.New(bearer.Keys("k1"), bearer.Scheme(tt.scheme))
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, fmt.Sprintf("bearer.Scheme: invalid scheme %q", tt.scheme))
		})
	}
}
