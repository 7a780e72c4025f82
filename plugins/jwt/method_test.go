package jwt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/bearer"
	burrowauth "github.com/burrow-go/burrow/plugins/auth"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// TestMethodInAnyOf: a JWT from the issuer and a static key share the
// authorization header; the token shaped as a JWT is the JWT method's
// to judge, and a bad one does not fall through to the key's.
func TestMethodInAnyOf(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	s := apptest.New(t)
	require.NoError(t, s.Register(func(s *app.Server) error {
		s.Register(burrowauth.AnyOf(
			jwt.Method(func(c *jwt.Claims[struct{}]) (string, error) { return "jwt:" + c.Subject, nil },
				jwt.Discovery(is.URL), jwt.Audience("api")),
			bearer.Method(func(bearer.Identity) (string, error) { return "key", nil }, bearer.Keys("static-key")),
		))
		type in struct {
			app.In
			User string
		}
		app.Get(s, "/me", func(_ context.Context, in in) (string, error) { return in.User, nil })
		return app.Delete(s, "/me", func(_ context.Context, in in) (string, error) { return in.User, nil }, jwt.Scopes("todos:write"))
	}))
	base := apptest.Serve(t, s)
	now := time.Now()
	tests := []struct {
		name, method string
		auth         string
		status       int
		body         string
		challenge    string
	}{
		{"a token of the issuer", "GET", "Bearer " + is.token(now, nil), 200, `jwt:ada`, ""},
		{"the static key", "GET", "Bearer static-key", 200, `key`, ""},
		{"a forged JWT is the JWT method's refusal", "GET", "Bearer x.y.z", 401, "Invalid token", `Bearer error="invalid_token"`},
		{"an expired JWT", "GET", "Bearer " + is.token(now.Add(-2*time.Hour), nil), 401, "Invalid token", `Bearer error="invalid_token"`},
		{"scopes still hold", "DELETE", "Bearer " + is.token(now, nil), 403, "Insufficient scope", `Bearer error="insufficient_scope", scope="todos:write"`},
		{"no credential: the first method's answer", "GET", "", 401, "Missing bearer token", "Bearer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var header []string
			if tt.auth != "" {
				header = []string{"Authorization", tt.auth}
			}
			res := apptest.Fetch(t, tt.method, base+"/me", header...)
			assert.Equal(t, tt.status, res.StatusCode, res.Body)
			assert.Contains(t, res.Body, tt.body)
			assert.Equal(t, tt.challenge, res.Header.Get("Www-Authenticate"))
		})
	}
	for _, r := range s.Routes() {
		assert.Equal(t, []string{"bearer", "jwt"}, r.Guards.Auth)
	}
}

func TestMethodRefusesOptional(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Register(burrowauth.AnyOf(jwt.Method(func(*jwt.Claims[struct{}]) (string, error) { return "", nil },
		jwt.Secret([]byte("a secret of at least 32 bytes...")), jwt.Optional()))))
	require.NoError(t, s.Get("/x", func() (string, error) { return "", nil }))
	err := s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "jwt.Method does not take jwt.Optional")
}
