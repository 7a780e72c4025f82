package ratelimit_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// A per-user limit must run after the hook that sets the user: Ready
// refuses every layout where it would not, naming the two hooks, instead
// of serving a limit that limits nobody.
func TestPerUserLimitBeforeTheHookSettingTheUserFailsReady(t *testing.T) {
	t.Parallel()
	limiter := func(kind app.Hook) *app.Plugin {
		return ratelimit.Plugin(ratelimit.Limit(perUser(1)), ratelimit.AsHook(kind))
	}
	tests := []struct {
		name      string
		body      func(s *app.Server) error
		routeHook bool     // /me has an auth hook of its own
		errors    []string // nil for a layout Ready accepts
	}{
		{"limiter registered before the auth hook", func(s *app.Server) error {
			s.Register(limiter(app.OnRequest))
			return s.AddHook(app.OnRequest, authenticate, app.SetsDecorators("user"))
		}, false, []string{`onRequest hook of plugin ratelimit:user (root > api) that reads request decorator "user" before an onRequest hook authenticate (root > api) sets it`, "register ratelimit:user after it"}},
		{"limiter in an earlier phase than the auth hook", func(s *app.Server) error {
			s.AddHook(app.PreHandler, authenticate, app.SetsDecorators("user"))
			return s.Register(limiter(app.OnRequest))
		}, false, []string{`before a preHandler hook authenticate (root > api) sets it`}},
		{"auth hook not declared", func(s *app.Server) error {
			s.AddHook(app.OnRequest, authenticate)
			return s.Register(limiter(app.OnRequest))
		}, false, []string{`reads request decorator "user", which no hook before it declares it sets`, `app.SetsDecorators("user")`}},
		{"auth hook of the route only, after the context's limiter", func(s *app.Server) error {
			return s.Register(limiter(app.OnRequest))
		}, true, []string{`route GET /me (root > api)`, `before an onRequest hook authenticate of the route sets it`}},
		{"auth hook first", func(s *app.Server) error {
			s.AddHook(app.OnRequest, authenticate, app.SetsDecorators("user"))
			return s.Register(limiter(app.OnRequest))
		}, false, nil},
		{"auth hook in an earlier phase", func(s *app.Server) error {
			s.AddHook(app.OnRequest, authenticate, app.SetsDecorators("user"))
			return s.Register(limiter(app.PreHandler))
		}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New(app.WithoutRequestLogging())
			s.DecorateRequest("user", (*user)(nil))
			s.Register(func(s *app.Server) error {
				if err := tt.body(s); err != nil {
					return err
				}
				var opts []app.RouteOption
				if tt.routeHook {
					opts = append(opts, app.WithHook(app.OnRequest, authenticate, app.SetsDecorators("user")))
				}
				return s.Get("/me", ok, opts...)
			}, app.Name("api"))
			err := s.Ready()
			if tt.errors == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, app.ErrHookOrder)
			for _, want := range tt.errors {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// bearer's hook declares the identity it sets: a per-user limit on it is
// accepted after it and limits.
func TestPerUserLimitOnBearerIdentity(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(bearer.Plugin(bearer.Keys("k1", "k2"), bearer.ExposeIdentity("key")))
	s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(ratelimit.AsHook(app.OnRequest), ratelimit.Limit(ratelimit.Policy{
			Name: "key", Limit: 1, Window: time.Minute,
			Key: ratelimit.ByDecorator("key", func(id bearer.Identity) string {
				if !id.Authenticated {
					return ""
				}
				return strconv.Itoa(id.Index)
			}),
		})))
		return s.Get("/me", ok)
	}, app.Name("api"))
	require.NoError(t, s.Ready())
	assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "Bearer k1").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/me", "Authorization", "Bearer k1").StatusCode)
	assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "Bearer k2").StatusCode, "the other key's budget")
}

// A hook that declares it sets the user but does not, followed by one
// that sets it undeclared, passes Ready: the limiter then only ever sees
// the user unset, and says so once, not once a request.
func TestPerUserLimitThatNeverSeesAUserWarnsOnce(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.WarnLevel)
	s := apptest.New(t, app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
	s.DecorateRequest("user", (*user)(nil))
	s.AddHook(app.OnRequest, func() {}, app.SetsDecorators("user")) // says so, sets nothing
	s.Register(ratelimit.Plugin(ratelimit.Limit(perUser(1)), ratelimit.AsHook(app.OnRequest)))
	s.AddHook(app.OnRequest, authenticate) // sets it, too late
	s.Get("/me", ok)
	require.NoError(t, s.Ready())

	for range 3 {
		assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "alice").StatusCode, "the limit sees no user")
	}
	warns := logs.FilterMessageSnippet("only ever seen it unset").All()
	require.Len(t, warns, 1, "one line, not one a request")
	assert.Equal(t, "user", warns[0].ContextMap()["policy"])
	assert.Equal(t, "user", warns[0].ContextMap()["decorator"])
}

// A limiter that has seen a user warns of nothing, whatever the
// anonymous requests before and after.
func TestPerUserLimitInOrderDoesNotWarn(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.WarnLevel)
	s := apptest.New(t, app.WithLogger(zap.New(core)), app.WithoutRequestLogging())
	s.DecorateRequest("user", (*user)(nil))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if name := req.Header("Authorization"); name != "" {
			return req.SetDecorator("user", &user{Name: name})
		}
		return nil
	}, app.SetsDecorators("user"))
	s.Register(ratelimit.Plugin(ratelimit.Limit(perUser(1)), ratelimit.AsHook(app.OnRequest)))
	s.Get("/me", ok)
	require.NoError(t, s.Ready())

	assert.Equal(t, http.StatusOK, get(t, s, "/me").StatusCode)
	assert.Equal(t, http.StatusOK, get(t, s, "/me", "Authorization", "alice").StatusCode)
	assert.Equal(t, http.StatusTooManyRequests, get(t, s, "/me", "Authorization", "alice").StatusCode)
	assert.Equal(t, http.StatusOK, get(t, s, "/me").StatusCode, "anonymous: not limited by the user policy")
	assert.Empty(t, logs.All())
}

// An authentication plugin registered after the per-user limit has not
// loaded when the limit does: Ready says to register it first.
func TestPerUserLimitBeforeTheAuthPluginFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(ratelimit.Plugin(ratelimit.AsHook(app.OnRequest), ratelimit.Limit(ratelimit.Policy{
		Name: "key", Limit: 1, Window: time.Minute,
		Key: ratelimit.ByDecorator("key", func(id bearer.Identity) string { return strconv.Itoa(id.Index) }),
	})))
	s.Register(bearer.Plugin(bearer.Keys("k1"), bearer.ExposeIdentity("key")))
	s.Get("/", ok)
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrMissingDecorator)
	assert.EqualError(t, err, `plugin ratelimit:key (root) needs request decorator "key", which no context provides before it: `+
		`register what provides it before this plugin, in root or an ancestor`)
}
