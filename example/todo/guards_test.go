package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
	"github.com/burrow-go/burrow/plugins/csrf"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/session"
)

// routeGuards is one object of todo -routes.
type routeGuards struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Context string `json:"context"`
	Guards  struct {
		Auth      []string `json:"auth"`
		CSRF      bool     `json:"csrf"`
		RateLimit []string `json:"rateLimit"`
		CORS      bool     `json:"cors"`
	} `json:"guards"`
}

// TestRoutesFlagPrintsWhatGuardsEachRoute runs todo -routes: a JSON
// array, printed without listening, that says what the server does.
func TestRoutesFlagPrintsWhatGuardsEachRoute(t *testing.T) {
	t.Parallel()
	bin := buildTodo(t)
	cmd := exec.CommandContext(t.Context(), bin, "-routes", "-port", "1", "-users", users, "-cors-origins", "https://app.example")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "exits 0; stderr: %s", stderr.String())
	assert.NotContains(t, stderr.String(), "server listening", "-routes prints and exits, and listens on nothing")
	assert.NotContains(t, stdout.String(), "null", "arrays are never null")
	var routes []routeGuards
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &routes), stdout.String())

	seen := map[string]routeGuards{}
	for _, r := range routes {
		seen[r.Method+" "+r.Path] = r
		assert.True(t, r.Guards.CORS, "%s %s: the CORS policy is the root's", r.Method, r.Path)
		if r.Method == http.MethodGet {
			assert.False(t, r.Guards.CSRF, "GET %s: a GET is never refused as CSRF", r.Path)
		}
		if strings.HasPrefix(r.Path, "/todos") {
			assert.Equal(t, []string{"bearer", "session"}, r.Guards.Auth, "%s %s", r.Method, r.Path)
			assert.Equal(t, []string{"user"}, r.Guards.RateLimit, "%s %s", r.Method, r.Path)
			assert.Equal(t, r.Method != http.MethodGet, r.Guards.CSRF, "%s %s: an unsafe route a cookie reaches refuses cross-site requests", r.Method, r.Path)
		}
	}
	for _, route := range []string{"GET /todos", "POST /todos", "POST /todos/batch", "POST /todos/import", "GET /todos/:id", "PATCH /todos/:id", "DELETE /todos/:id"} {
		assert.Contains(t, seen, route)
	}
	health := seen["GET /healthz"].Guards
	assert.Empty(t, health.Auth, "/healthz needs nothing")
	assert.Empty(t, health.RateLimit, "/healthz counts against no budget")
	login := seen["POST /session"].Guards
	assert.Empty(t, login.Auth, "logging in needs no credential")
	assert.True(t, login.CSRF, "a cross-site log-in is refused")
	assert.Equal(t, []string{"ip"}, login.RateLimit)
}

// TestGuardsAgreeWithBehaviour: the ways in -routes lists are the ways
// in; CSRF refuses what it says, and a wrong token does not fall through
// to a live session.
func TestGuardsAgreeWithBehaviour(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	login := s.exchange(t, "POST", "/session", `{"user":"alice","token":"tokenA"}`, "Content-Type", "application/json")
	require.Equal(t, http.StatusNoContent, login.status, login.body)
	cookie := strings.Split(login.header.Get("Set-Cookie"), ";")[0]

	created := s.exchange(t, "POST", "/todos", `{"title":"by cookie"}`, "Cookie", cookie, "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, created.status, created.body)
	tests := []struct {
		name         string
		method, path string
		header       []string
		status       int
	}{
		{"bearer", "GET", "/todos", []string{"Authorization", "Bearer tokenA"}, 200},
		{"session", "GET", "/todos", []string{"Cookie", cookie}, 200},
		{"a wrong token beside a live session", "GET", "/todos", []string{"Authorization", "Bearer nope", "Cookie", cookie}, 401},
		{"a cross-site GET with the cookie", "GET", "/todos", []string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site"}, 200},
		{"a cross-site PATCH with the cookie", "PATCH", "/todos/1", []string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, 403},
		{"a cross-site PATCH with a token", "PATCH", "/todos/1", []string{"Authorization", "Bearer tokenA", "Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, 200},
		{"healthz", "GET", "/healthz", nil, 200},
	}
	for _, tt := range tests {
		body := ""
		if tt.method == "PATCH" {
			body = `{"done":true}`
		}
		a := s.exchange(t, tt.method, tt.path, body, tt.header...)
		assert.Equal(t, tt.status, a.status, "%s: %s", tt.name, a.body)
	}
}

// TestPoliciesFailReadyWhenAGuardIsRemoved builds the API context as
// apiPlugin does, but for one guard: Ready refuses it, naming the first
// route left unguarded.
func TestPoliciesFailReadyWhenAGuardIsRemoved(t *testing.T) {
	t.Parallel()
	a := newAccounts([]user{{name: "alice", token: "tokenA"}}, []int64{1})
	sessions := session.NewMemoryStore()
	alice := func(context.Context, struct{ app.In }) (userID, func(bool) error, error) { return 1, nil, nil }
	// noAuth is what a developer might wire to try the API: every
	// request is alice's.
	noAuth := app.Wrap(func(s *app.Server) error { return s.ProvideRequest(app.Provider(alice)) })
	// cookieOnly checks the session cookie by a hook of its own, which
	// knows nothing of CSRF (auth.AnyOf does).
	cookieOnly := app.Wrap(func(s *app.Server) error {
		if err := s.DeclareGuard(app.Guard{Kind: app.GuardAuth, Name: "session", Cookie: true}); err != nil {
			return err
		}
		if err := s.AddHook(app.OnRequest, func(req *httpx.Request) error {
			if _, err := req.Raw().Cookie(sessionCookie); err != nil {
				return errSessionEnded
			}
			return nil
		}); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(alice))
	})
	perUser := &traffic{perUser: 10, perIP: 10, store: ratelimit.NewMemory()}
	keys := idempotency.SQL(idempotency.SQLite)
	type userIn struct {
		app.In
		User userID
	}
	me := func(_ context.Context, in userIn) (int64, error) { return int64(in.User), nil }
	tests := []struct {
		name    string
		csrf    bool
		todos   func(*app.Server) error
		kind    error
		message string
	}{
		{"the real API", true, todosPlugin(guardPlugin(a, sessions), perUser, keys, false), nil, ""},
		{"no authentication", true, todosPlugin(noAuth, &traffic{}, keys, false), app.ErrPolicy,
			"route GET /todos (root > api > todos) requires no authentication"},
		{"a cookie without CSRF", false, todosPlugin(cookieOnly, &traffic{}, keys, false), app.ErrPolicy,
			"route POST /todos (root > api > todos) can be authenticated by a cookie but does not refuse cross-site requests"},
		{"the per-user limit before the guard", true, func(s *app.Server) error {
			s.Register(perUser.guardUsers())
			s.Register(guardPlugin(a, sessions))
			return app.Get(s, "/todos", me)
		}, app.ErrHookOrder, "route GET /todos (root > api > todos) has an onRequest hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, err := openDB(t.Context(), "")
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			s := app.New(app.WithLogger(zap.NewNop()))
			s.Register(livePlugin(pubsub.New()))
			s.Register(dbPlugin(db, nil))
			s.Register(func(s *app.Server) error {
				s.Policy(apiPolicies()...)
				s.Register(session.Plugin[account](sessions, session.Cookie(sessionCookie)))
				if tt.csrf {
					s.Register(csrf.Plugin(csrf.Exempt(bearerRequest)))
				}
				s.Register(sessionPlugin(a), app.Name("session"))
				return s.Register(tt.todos, app.Name("todos"))
			}, app.Name("api"))
			err = s.Ready()
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			if tt.kind == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.kind)
			assert.ErrorContains(t, err, tt.message)
			if tt.kind == app.ErrHookOrder {
				assert.ErrorContains(t, err, "reads request decorator \""+auth.Decorator+"\"")
			}
		})
	}
}
