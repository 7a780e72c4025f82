package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

type noIn struct {
	User  string `name:"user"`
	Store *todoStore
}

type valueStore struct {
	app.In
	Store todoStore
}

type untaggedUser struct {
	app.In
	User *todoUser
}

type todoUser struct{ Name string }

type wrongPath struct {
	app.In
	ID int `path:"todo"`
}

type badDefault struct {
	app.In
	Limit int `query:"limit" default:"many"`
}

type twoSources struct {
	app.In
	ID int `path:"id" query:"id"`
}

type pathDefault struct {
	app.In
	ID int `path:"id" default:"1"`
}

type stdRequestField struct {
	app.In
	R *http.Request
}

func stdStd(w http.ResponseWriter, r *http.Request) {}

// TestMistakesNameTheirFix pins the start-up error of each common
// mistake, whose message says what to write instead.
func TestMistakesNameTheirFix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server) error
		is    error
		msg   string
	}{
		{"an http.HandlerFunc as a hook", func(s *app.Server) error {
			_ = s.AddHook(app.PreHandler, http.HandlerFunc(stdStd))
			return s.Get("/", func() {})
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid preHandler hook stdStd: http.HandlerFunc is a standard http.Handler, " +
			"which only a route or Mount may take; to run one around routes, make it a middleware (Use)"},
		{"an http.HandlerFunc as an error handler", func(s *app.Server) error {
			_ = s.SetErrorHandler(stdStd)
			return s.Get("/", func() {})
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid error handler from root: func(http.ResponseWriter, *http.Request) " +
			"is a standard http.Handler, which only a route or Mount may take; to run one around routes, make it a middleware (Use)"},
		{"a *http.Request parameter", func(s *app.Server) error {
			return s.Get("/", func(r *http.Request, rep *httpx.Reply) error { return nil })
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: *http.Request cannot be taken: use *httpx.Request, whose Raw() is the *http.Request"},
		{"an http.ResponseWriter parameter", func(s *app.Server) error {
			return s.Get("/", func(w http.ResponseWriter, r *httpx.Request) {})
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: http.ResponseWriter cannot be taken: use *httpx.Reply, whose Raw() is the http.ResponseWriter"},
		{"a *http.Request field", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, stdRequestField) (string, error) { return "", nil })
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: app_test.stdRequestField.R: *http.Request cannot be taken: use *httpx.Request, whose Raw() is the *http.Request"},
		{"a struct parameter without app.In", func(s *app.Server) error {
			return s.Get("/", func(noIn) {})
		}, nil, "route GET / (root) needs service app_test.noIn, which no context provides; " +
			"its fields have Burrow's tags: embed app.In in app_test.noIn so Burrow fills them"},
		{"a typed route's input without app.In", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, noIn) (string, error) { return "", nil })
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: app_test.noIn cannot be a route's input: " +
			"embed app.In in a struct, or use struct{} for no input"},
		{"a value where a pointer is provided", func(s *app.Server) error {
			_ = s.Decorate(&todoStore{})
			return app.Get(s, "/", func(context.Context, valueStore) (string, error) { return "", nil })
		}, nil, "route GET / (root) needs service app_test.todoStore, which no context provides; " +
			"*app_test.todoStore is provided in root: take it as *app_test.todoStore"},
		{"a pointer where a value is provided", func(s *app.Server) error {
			_ = s.Decorate(todoStore{})
			return s.Get("/", func(*todoStore) {})
		}, nil, "route GET / (root) needs service *app_test.todoStore, which no context provides; " +
			"app_test.todoStore is provided in root: take it as app_test.todoStore"},
		{"a request decorator as a pointer where it holds a value", func(s *app.Server) error {
			_ = s.DecorateRequest("user", todoUser{})
			return app.Get(s, "/", func(context.Context, struct {
				app.In
				User *todoUser `name:"user"`
			}) (string, error) {
				return "", nil
			})
		}, httpx.ErrDecoratorType, `route GET / (root) needs request decorator "user" as *app_test.todoUser (field User), ` +
			"but it holds app_test.todoUser: declare the field as app_test.todoUser"},
		{"a missing name tag", func(s *app.Server) error {
			_ = s.DecorateRequest("user", (*todoUser)(nil))
			return app.Get(s, "/", func(context.Context, untaggedUser) (string, error) { return "", nil })
		}, nil, "route GET / (root) needs service *app_test.todoUser, which no context provides; " +
			`request decorator "user" holds a *app_test.todoUser: tag the field User name:"user"`},
		{"a decorator as a plain parameter", func(s *app.Server) error {
			_ = s.DecorateRequest("user", (*todoUser)(nil))
			return s.Get("/", func(*todoUser) {})
		}, nil, "route GET / (root) needs service *app_test.todoUser, which no context provides; " +
			`request decorator "user" holds a *app_test.todoUser: take it through an In struct field tagged name:"user"`},
		{"a path field the route does not have", func(s *app.Server) error {
			return app.Get(s, "/todos/:id", func(context.Context, wrongPath) (string, error) { return "", nil })
		}, app.ErrInvalidInput, `route GET /todos/:id (root) has an invalid input struct: app_test.wrongPath.ID takes path parameter "todo", which /todos/:id does not have`},
		{"a default that does not convert", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, badDefault) (string, error) { return "", nil })
		}, app.ErrInvalidInput, `route GET / (root) has an invalid input struct: app_test.badDefault.Limit: default "many" does not convert to int`},
		{"a field with two sources", func(s *app.Server) error {
			return app.Get(s, "/:id", func(context.Context, twoSources) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET /:id (root) has an invalid handler: app_test.twoSources.ID is tagged both path and query: a field holds one value"},
		{"input fields in an onRequest hook", func(s *app.Server) error {
			_ = s.AddHook(app.OnRequest, func(headerRules) {})
			return s.Get("/", func() {})
		}, app.ErrInvalidInput, "route GET / (root) has an invalid onRequest hook: app_test.headerRules (its path, query, header and cookie fields) " +
			"cannot be taken in an onRequest hook, which runs before the body is parsed"},
		{"a body field in an error handler", func(s *app.Server) error {
			_ = s.SetErrorHandler(func(createTodoIn, error) error { return nil })
			return s.Get("/", func() {})
		}, app.ErrInvalidInput, "route GET / (root) has an invalid error handler from root: app_test.createTodoIn.Body (the body) cannot be taken in an error handler"},
		{"a path default", func(s *app.Server) error {
			return app.Get(s, "/:id", func(context.Context, pathDefault) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET /:id (root) has an invalid input struct: app_test.pathDefault.ID: a path parameter is always present, so it takes no default"},
		{"Status on a route that is not typed", func(s *app.Server) error {
			return s.Get("/", func() {}, app.Status(201))
		}, app.ErrInvalidHandler, "route GET / (root) takes Status, which only a typed route (app.Get, app.Post, … app.Handle) applies"},
		{"Status with Created", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, struct{}) (app.Created[string], error) {
				return app.Created[string]{}, nil
			}, app.Status(200))
		}, app.ErrInvalidHandler, "route POST / (root) has an invalid handler: app.Created[string] declares its own status, so Status does not apply"},
		{"Status 204", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, struct{}) (string, error) { return "", nil }, app.Status(204))
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid status 204: Status takes a success status with a body, 200 to 299 but 204"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := startupError(app.New(), tt.build)
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.EqualError(t, err, tt.msg)
		})
	}
}
