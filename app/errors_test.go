package app_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// Named functions, so that the messages that name a hook are stable.
func variadicHook(int, ...int)                  {}
func needsLoggerNamedX(struct{ Z *zap.Logger }) {}

type sessionDep struct {
	app.In
	Session int `name:"session"`
}

// In structs Burrow refuses, named so the messages are stable.
type (
	nestedIn     struct{ sessionDep }
	unexportedIn struct {
		app.In
		session int `name:"session"`
	}
	groupIn struct {
		app.In
		Hooks []int `group:"hooks"`
	}
)

var _ = unexportedIn{}.session // read by Burrow's planner, which refuses it

type badRule struct {
	Name string `json:"name" validate:"email2"`
}

func parseNothing(*httpx.Request, io.Reader, any) error { return nil }

// errNo is what a failing user function returns.
var errNo = errors.New("no")

// startupError registers on s with build and then readies s, and returns
// the error a user meets first: a registration's, or else Ready's.
func startupError(s *app.Server, build func(*app.Server) error) error {
	if err := build(s); err != nil {
		return err
	}
	return s.Ready()
}

// TestStartupErrorTexts pins the full text of each start-up error: each
// names its subject (a route, a plugin, a context) once and reads as one
// sentence, and each matches its sentinel with errors.Is.
func TestStartupErrorTexts(t *testing.T) {
	t.Parallel()
	nothing := func(*httpx.Reply) error { return nil }
	tests := []struct {
		name  string
		build func(s *app.Server) error // the first error of its registrations, or nil
		is    error
		msg   string
	}{
		// Invalid handler shapes.
		{"nil handler", func(s *app.Server) error { return s.Get("/", nil) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: nil"},
		{"not a function", func(s *app.Server) error { return s.Get("/", 42) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: int is not a function"},
		{"variadic handler", func(s *app.Server) error { return s.Get("/", func(int, ...int) {}) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: func(int, ...int) is variadic"},
		{"bad result", func(s *app.Server) error { return s.Get("/", func() int { return 0 }) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: func() int must return error or (T, error)"},
		{"too many results", func(s *app.Server) error {
			return s.Get("/", func() (int, int, error) { return 0, 0, nil })
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: func() (int, int, error) returns too many values"},
		{"pointer to In", func(s *app.Server) error { return s.Get("/", func(*sessionDep) {}) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: *app_test.sessionDep: take an In struct by value"},
		{"nested In, flattened: its field needs what it needs", func(s *app.Server) error { return s.Get("/", func(nestedIn) {}) },
			scope.ErrNotVisible, `route GET / (root) needs service int named "session", which no context provides`},
		{"unexported In field", func(s *app.Server) error { return s.Get("/", func(unexportedIn) {}) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: app_test.unexportedIn.session is not exported"},
		{"value group in a handler", func(s *app.Server) error { return s.Get("/", func(groupIn) {}) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid handler: app_test.groupIn.Hooks: value groups are not supported in handlers"},
		// What a route needs.
		{"decorator not visible", func(s *app.Server) error { return s.Get("/", func(sessionDep) {}) },
			scope.ErrNotVisible, `route GET / (root) needs service int named "session", which no context provides`},
		{"decorator type", func(s *app.Server) error {
			if err := s.DecorateRequest("session", ""); err != nil {
				return err
			}
			return s.Get("/", func(sessionDep) {})
		}, httpx.ErrDecoratorType, `route GET / (root) needs request decorator "session" as int (field Session), but it holds string`},
		{"service not visible", func(s *app.Server) error { return s.Get("/", func(*testing.T) {}) },
			scope.ErrNotVisible, "route GET / (root) needs service *testing.T, which no context provides"},
		// Hooks and error handlers.
		{"invalid hook", func(s *app.Server) error {
			if err := s.AddHook(app.OnRequest, variadicHook); err != nil {
				return err
			}
			return s.Get("/", nothing)
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid onRequest hook variadicHook: func(int, ...int) is variadic"},
		{"hook that needs a service", func(s *app.Server) error {
			if err := s.AddHook(app.PreHandler, needsLoggerNamedX); err != nil {
				return err
			}
			return s.Get("/", nothing)
		}, scope.ErrNotVisible, "route GET / (root) has a preHandler hook needsLoggerNamedX that needs service struct { Z *zap.Logger }, which no context provides"},
		{"nil hook", func(s *app.Server) error { return s.AddHook(app.OnRequest, nil) },
			app.ErrInvalidHandler, "invalid onRequest hook in root: nil"},
		{"onSend hook of the wrong type", func(s *app.Server) error { return s.AddHook(app.OnSend, nothing) },
			app.ErrInvalidHandler, "invalid onSend hook in root: an onSend hook is an OnSendFunc, not func(*httpx.Reply) error"},
		{"nil route hook", func(s *app.Server) error { return s.Get("/", nothing, app.WithHook(app.OnRequest, nil)) },
			app.ErrInvalidHandler, "route GET / (root) has an invalid onRequest hook: nil"},
		{"input in a hook", func(s *app.Server) error {
			if err := s.AddHook(app.OnRequest, func(app.Body[badRule]) {}); err != nil {
				return err
			}
			return s.Get("/", nothing)
		}, app.ErrInvalidInput, "route GET / (root) has an invalid onRequest hook: app.Body[github.com/burrow-go/burrow/app_test.badRule] " +
			"cannot be taken in an onRequest hook, which runs before the body is parsed"},
		{"invalid error handler", func(s *app.Server) error {
			if err := s.SetErrorHandler(func(int, ...int) {}); err != nil {
				return err
			}
			return s.Get("/", nothing)
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid error handler from root: func(int, ...int) is variadic"},
		{"error handler set twice", func(s *app.Server) error {
			_ = s.SetErrorHandler(func(error) error { return nil })
			return s.SetErrorHandler(func(error) error { return nil })
		}, app.ErrHandlerSet, "the error handler of root is already set"},
		{"failed onRoute hook", func(s *app.Server) error {
			_ = s.OnRoute(func(*app.RouteSpec) error { return errNo })
			return s.Get("/", nothing)
		}, errNo, "route GET / (root) failed in an onRoute hook: no"},
		{"nil application hook", func(s *app.Server) error { return s.OnReady(nil) },
			app.ErrInvalidHandler, "invalid application hook in root: nil"},
		// Not-found handlers.
		{"nil not-found handler", func(s *app.Server) error { return s.SetNotFoundHandler(nil) },
			app.ErrInvalidHandler, "invalid not-found handler in root: nil"},
		{"not-found handler without a prefix", func(s *app.Server) error {
			return s.Register(func(c *app.Server) error { return c.SetNotFoundHandler(nothing) }, app.Name("c"))
		}, app.ErrInvalidHandler, "plugin c (root > c) failed: invalid not-found handler in root > c: the context has no prefix of its own, " +
			"so it would shadow its parent's; register the plugin with app.Prefix"},
		{"not-found handler set twice", func(s *app.Server) error {
			_ = s.SetNotFoundHandler(nothing)
			return s.SetNotFoundHandler(nothing)
		}, app.ErrHandlerSet, "the not-found handler of root is already set"},
		{"not-found handler of one prefix in two contexts", func(s *app.Server) error {
			_ = s.Register(func(c *app.Server) error { return c.SetNotFoundHandler(nothing) }, app.Name("a"), app.Prefix("/api"))
			return s.Register(func(c *app.Server) error { return c.SetNotFoundHandler(nothing) }, app.Name("b"), app.Prefix("/api"))
		}, app.ErrHandlerSet, "the not-found handler of root > b for /api is already set in root > a"},
		// net/http interop.
		{"nil middleware", func(s *app.Server) error { return s.Use(nil) },
			app.ErrInvalidHandler, "invalid middleware in root: nil"},
		{"nil mounted handler", func(s *app.Server) error { return s.Mount("/files", nil) },
			app.ErrInvalidHandler, `invalid handler mounted at "/files" in root: nil`},
		{"mount prefix without a slash", func(s *app.Server) error { return s.Mount("files", http.NotFoundHandler()) },
			httpx.ErrInvalidPath, `invalid mount prefix "files" in root: it must start with / and have no empty segment`},
		{"mount prefix with a parameter", func(s *app.Server) error { return s.Mount("/files/:id", http.NotFoundHandler()) },
			httpx.ErrInvalidPath, `invalid mount prefix "/files/:id" in root: it holds a parameter or a wildcard`},
		// Body parsers.
		{"parser of a bad media type", func(s *app.Server) error { return s.AddContentTypeParser("text", parseNothing) },
			app.ErrInvalidInput, `invalid parser in root: bad media type "text"`},
		{"nil parser", func(s *app.Server) error { return s.AddContentTypeParser("text/csv", nil) },
			app.ErrInvalidInput, `invalid parser for "text/csv" in root: nil`},
		{"parser added twice", func(s *app.Server) error {
			_ = s.AddContentTypeParser("text/csv", parseNothing)
			return s.AddContentTypeParser("Text/CSV", parseNothing)
		}, app.ErrInvalidInput, `invalid parser for "text/csv" in root: one is already added`},
		{"bad context body limit", func(s *app.Server) error { return s.SetBodyLimit(0) },
			app.ErrInvalidInput, "invalid body limit 0 in root"},
		// Input types.
		{"unknown rule", func(s *app.Server) error { return s.Post("/", func(app.Body[badRule]) {}) },
			app.ErrInvalidConstraint, `route POST / (root) has an invalid body type: app_test.badRule.Name: unknown rule "email2": ` +
				"Burrow's rules are required, min, max, len, enum, format and the pattern tag"},
		{"bad body limit", func(s *app.Server) error { return s.Post("/", nothing, app.BodyLimit(-1)) },
			app.ErrInvalidInput, "route POST / (root) has an invalid body limit -1"},
		// Route descriptions.
		{"bad operation id", func(s *app.Server) error { return s.Get("/", nothing, app.OperationID("1x")) },
			app.ErrInvalidHandler, `route GET / (root) has an invalid operation id "1x": use letters, digits, _, . and -, starting with a letter or _`},
		{"bad declared status", func(s *app.Server) error { return s.Get("/", nothing, app.Responds(99, nil)) },
			app.ErrInvalidHandler, "route GET / (root) declares a response with status 99, which is not an HTTP status (100-599)"},
		// Several failing options: the first is the error, one sentence.
		{"two failing route options", func(s *app.Server) error {
			return s.Post("/", nothing, app.WithHook(app.OnRequest, nil), app.OperationID("1x"), app.Responds(99, nil), app.BodyLimit(-1))
		}, app.ErrInvalidHandler, "route POST / (root) has an invalid onRequest hook: nil"},
		{"two failing plugin options", func(s *app.Server) error {
			return s.Register(app.Wrap(func(*app.Server) error { return nil }, app.Name("p"),
				app.Check(func() error { return errors.New("first") }), app.Supports("banana")))
		}, app.ErrInvalidPlugin, "plugin p (root) is invalid: first"},
		// Methods and paths.
		{"bad method", func(s *app.Server) error { return s.Route("get", "/", nothing) },
			httpx.ErrInvalidMethod, `invalid method "get" in root: a method is an upper-case token`},
		{"path without a slash", func(s *app.Server) error { return s.Get("x", nothing) },
			httpx.ErrInvalidPath, `invalid path "x" in root: it must start with /`},
		{"wildcard not last", func(s *app.Server) error { return s.Get("/a/*/b", nothing) },
			httpx.ErrInvalidPath, `route GET /a/*/b (root) cannot be added: invalid path "/a/*/b": * must be the last segment`},
		{"duplicate route", func(s *app.Server) error {
			_ = s.Get("/x", nothing)
			return s.Get("/x", nothing)
		}, httpx.ErrDuplicateRoute, "route GET /x (root) is already registered"},
		{"conflicting parameter", func(s *app.Server) error {
			_ = s.Get("/u/:id", nothing)
			return s.Get("/u/:name/x", nothing)
		}, httpx.ErrRouteConflict, `route GET /u/:name/x (root) cannot be added: path "/u/:name/x" names parameter "name" where another route names it "id"`},
		// Plugins.
		{"plugin failed", func(s *app.Server) error {
			return s.Register(func(*app.Server) error { return errors.New("boom") }, app.Name("db"))
		}, app.ErrPlugin, "plugin db (root > db) failed: boom"},
		{"registration that failed in a plugin", func(s *app.Server) error {
			return s.Register(func(s *app.Server) error { _ = s.Get("x", func() {}); return nil }, app.Name("api"))
		}, httpx.ErrInvalidPath, `plugin api (root > api) failed: invalid path "x" in root > api: it must start with /`},
		{"Ready called from a plugin body", func(s *app.Server) error {
			return s.Register(func(p *app.Server) error { return p.Ready() }, app.Name("p"))
		}, app.ErrAlreadyStarted, "plugin p (root > p) failed: Ready (or Inject, Listen, Serve) was called from a plugin body and would wait for itself"},
		{"closed during boot", func(s *app.Server) error {
			return s.Register(func(p *app.Server) error { return p.Close(context.Background()) })
		}, app.ErrClosed, "Close was called while the server was starting"},
		{"registration in an onReady hook", func(s *app.Server) error {
			return s.OnReady(func() error { return s.Get("/late", nothing) })
		}, app.ErrAlreadyStarted, "onReady hook in root: route GET /late (root) refused: the routes are already compiled, so an OnReady hook may only add OnListen, PreClose and OnClose hooks"},
		{"plugin registered after its context loaded", func(s *app.Server) error {
			var a *app.Server
			_ = s.Register(func(c *app.Server) error { a = c; return nil }, app.Name("a"))
			return s.Register(func(*app.Server) error {
				return a.Register(func(*app.Server) error { return nil }, app.Name("late"))
			}, app.Name("b"))
		}, app.ErrInvalidPlugin, "plugin late was registered into root > a after that context had loaded"},
		{"not a plugin", func(s *app.Server) error { return s.Register(42) },
			app.ErrInvalidPlugin, "invalid plugin in root: int is not a func(*app.Server) error, func(*app.Server) or *app.Plugin"},
		{"prefix on a wrapped plugin", func(s *app.Server) error {
			return s.Register(app.Wrap(func(*app.Server) error { return nil }, app.Name("auth")), app.Prefix("/v1"))
		}, app.ErrInvalidPlugin, "plugin auth (root) is invalid: app.Prefix applies to a plugin's own context, which a wrapped plugin does not have"},
		{"prefix given to Wrap", func(s *app.Server) error {
			return s.Register(app.Wrap(func(*app.Server) error { return nil }, app.Prefix("/v1")))
		}, app.ErrInvalidPlugin, "plugin plugin-0 (root) is invalid: app.Prefix applies to a plugin's own context, which a wrapped plugin does not have"},
		{"nil plugin", func(s *app.Server) error { return s.Register((*app.Plugin)(nil)) },
			app.ErrInvalidPlugin, "invalid plugin in root: nil *app.Plugin"},
		{"version mismatch", func(s *app.Server) error {
			return s.Register(app.Wrap(func(*app.Server) error { return nil }, app.Name("old"), app.Supports("^0.1.0")))
		}, app.ErrVersionMismatch, "plugin old (root) supports Burrow ^0.1.0, this is " + app.Version},
		{"missing dependency", func(s *app.Server) error {
			return s.Register(app.Wrap(func(*app.Server) error { return nil }, app.Name("users"), app.DependsOn("db")))
		}, app.ErrMissingDependency, `plugin users (root) needs plugin "db", which is not registered before it in root or an ancestor`},
		{"plugin registered twice", func(s *app.Server) error {
			p := app.Wrap(func(*app.Server) error { return nil }, app.Name("metrics"))
			_ = s.Register(p)
			return s.Register(p)
		}, app.ErrDuplicatePlugin, "plugin metrics (root) is already registered in root"},
		// Decorators and services.
		{"empty decorator name", func(s *app.Server) error { return s.DecorateRequest("", 0) },
			app.ErrInvalidDecorator, "invalid request decorator in root: empty name"},
		{"untyped decorator", func(s *app.Server) error { return s.DecorateRequest("user", nil) },
			app.ErrInvalidDecorator, `invalid request decorator "user" in root: it has no value, so no type; use a typed nil`},
		{"decorator declared twice", func(s *app.Server) error {
			_ = s.DecorateRequest("user", "")
			return s.DecorateRequest("user", "")
		}, scope.ErrDuplicate, `request decorator "user" is already declared in root`},
		{"nil service", func(s *app.Server) error { return s.Decorate(nil) },
			app.ErrInvalidDecorator, "invalid service in root: nil"},
		// Security schemes.
		{"bad security scheme name", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "a b", Type: "http", Scheme: "basic"})
		}, app.ErrInvalidSecurity, `invalid security scheme name "a b" in root: use letters, digits, ., _ or -`},
		{"http scheme without Scheme", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "http"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: type http needs a Scheme (bearer, basic, …)`},
		{"apiKey scheme without In", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "apiKey", In: "body", ParamName: "k"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: type apiKey needs ParamName and In (header, query or cookie)`},
		{"openIdConnect scheme without URL", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "openIdConnect"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: type openIdConnect needs OpenIDConnectURL`},
		{"oauth2 security scheme", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "oauth2"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: type oauth2 needs flows, which a SecurityScheme cannot describe yet`},
		{"mutualTLS security scheme", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "mutualTLS"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: type mutualTLS is OpenAPI 3.1's alone, and the document's 3.0.3 rendition could not hold it`},
		{"unknown security scheme type", func(s *app.Server) error {
			return s.DeclareSecurity(app.SecurityScheme{Name: "x", Type: "magic"})
		}, app.ErrInvalidSecurity, `invalid security scheme "x" in root: it has type "magic"; OpenAPI's are http, apiKey, oauth2, openIdConnect and mutualTLS`},
		{"security scheme declared differently", func(s *app.Server) error {
			_ = s.DeclareSecurity(app.SecurityScheme{Name: "key", Type: "apiKey", In: "header", ParamName: "X-Key"})
			return s.Register(func(c *app.Server) error {
				return c.DeclareSecurity(app.SecurityScheme{Name: "key", Type: "apiKey", In: "query", ParamName: "key"})
			}, app.Name("api"))
		}, app.ErrInvalidSecurity, `plugin api (root > api) failed: security scheme "key" declared in root > api differs from the one of that name in root`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			err := startupError(s, tt.build)
			assert.Equal(t, err, s.Ready(), "Ready reports the registration's error, and its own again")
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.EqualError(t, err, tt.msg)
		})
	}
}
