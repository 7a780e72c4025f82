package app_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

type todoStore struct{ prefix string }

// getTodoIn takes a value from every source an In struct has.
type getTodoIn struct {
	app.In
	ID    int64          `path:"id" validate:"min=1"`
	Limit int            `query:"limit" default:"20" validate:"min=1,max=100"`
	Tags  []string       `query:"tag"`
	Page  *int           `query:"page"`
	Trace string         `header:"x-trace-id"`
	Sid   string         `cookie:"sid"`
	Lang  string         `header:"Accept-Language" default:"en"`
	User  string         `name:"user"`
	Store *todoStore     // a service, by type
	Req   *httpx.Request // built-ins
	Ctx   context.Context
}

type todoOut struct {
	ID    int64    `json:"id"`
	Limit int      `json:"limit"`
	Tags  []string `json:"tags"`
	Page  *int     `json:"page"`
	Trace string   `json:"trace"`
	Sid   string   `json:"sid"`
	Lang  string   `json:"lang"`
	User  string   `json:"user"`
	Store string   `json:"store"`
	Path  string   `json:"path"`
	Ctx   bool     `json:"ctx"`
}

func todoServer(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.Decorate(&todoStore{prefix: "db"}))
	require.NoError(t, s.DecorateRequest("user", "ann"))
	require.NoError(t, app.Get(s, "/todos/:id", func(ctx context.Context, in getTodoIn) (todoOut, error) {
		return todoOut{ID: in.ID, Limit: in.Limit, Tags: in.Tags, Page: in.Page, Trace: in.Trace, Sid: in.Sid, Lang: in.Lang,
			User: in.User, Store: in.Store.prefix, Path: in.Req.Raw().URL.Path, Ctx: in.Ctx == ctx}, nil
	}))
	return s
}

// TestTypedRouteFillsOneInputStruct sends requests to a typed route
// whose In struct takes path, query, header and cookie values, a request
// decorator, a service and built-ins, and checks what the handler got,
// defaults and the 400s included.
func TestTypedRouteFillsOneInputStruct(t *testing.T) {
	t.Parallel()
	s := todoServer(t)
	tests := []struct {
		name, target string
		header       []string
		status       int
		body         string
	}{
		{"everything absent takes defaults and zero values", "/todos/7", nil, 200,
			`{"id":7,"limit":20,"tags":null,"page":null,"trace":"","sid":"","lang":"en","user":"ann","store":"db","path":"/todos/7","ctx":true}`},
		{"every source", "/todos/7?limit=5&tag=a&tag=b&page=0", []string{"X-Trace-Id", "t1", "Cookie", "sid=s1; other=x", "Accept-Language", "fr"}, 200,
			`{"id":7,"limit":5,"tags":["a","b"],"page":0,"trace":"t1","sid":"s1","lang":"fr","user":"ann","store":"db","path":"/todos/7","ctx":true}`},
		{"a header named in any case", "/todos/7", []string{"x-trace-id", "t2"}, 200,
			`{"id":7,"limit":20,"tags":null,"page":null,"trace":"t2","sid":"","lang":"en","user":"ann","store":"db","path":"/todos/7","ctx":true}`},
		{"path value that does not convert", "/todos/x", nil, 400, `"validation":[{"path":"params/id","rule":"type","message":"must be integer"}]`},
		{"path value out of range", "/todos/0", nil, 400, `"validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]`},
		{"query value out of range", "/todos/1?limit=101", nil, 400, `"validation":[{"path":"querystring/limit","rule":"max","message":"must be <= 100"}]`},
		{"query value that does not convert", "/todos/1?page=x", nil, 400, `"validation":[{"path":"querystring/page","rule":"type","message":"must be integer"}]`},
		{"malformed query", "/todos/1?a=%zz", nil, 400, `querystring is malformed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, _ := do(t, s, "GET", tt.target, tt.header...)
			assert.Equal(t, tt.status, status)
			if tt.status == 200 {
				assert.JSONEq(t, tt.body, body)
			} else {
				assert.Contains(t, body, tt.body)
			}
		})
	}
}

type headerRules struct {
	app.In
	Key string `header:"X-Api-Key" validate:"required"`
	Sid string `cookie:"sid" validate:"required"`
}

// TestTypedRouteValidatesHeadersAndCookies checks that the validation
// array names header and cookie fields under their own sources.
func TestTypedRouteValidatesHeadersAndCookies(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, app.Get(s, "/", func(_ context.Context, in headerRules) (string, error) { return in.Key + in.Sid, nil }))
	status, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, 400, status)
	assert.Contains(t, body, `"validation":[{"path":"headers/X-Api-Key","rule":"required","message":"is required"},`+
		`{"path":"cookies/sid","rule":"required","message":"is required"}]`)
	status, body, _ = do(t, s, "GET", "/", "X-Api-Key", "k", "Cookie", "sid=s")
	assert.Equal(t, 200, status)
	assert.Equal(t, "ks", body)
}

type newTodo struct {
	Title string `json:"title" validate:"required,max=200"`
	Done  bool   `json:"done"`
}

type createTodoIn struct {
	app.In
	Body  newTodo `body:""`
	Store *todoStore
}

type patchTodoIn struct {
	app.In
	ID   int64             `path:"id"`
	Body app.Body[newTodo] // the wrapper form is accepted too
	Q    app.Query[struct {
		Dry bool `query:"dry"`
	}]
}

// TestTypedRouteResponses checks the declared responses: Created (201 and
// Location), NoContent (204, empty body), Status, and the default 200 —
// and that the body field is decoded and validated like Body[T].
func TestTypedRouteResponses(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(&todoStore{prefix: "db"}))
	require.NoError(t, app.Post(s, "/todos", func(_ context.Context, in createTodoIn) (app.Created[newTodo], error) {
		return app.Created[newTodo]{Location: "/todos/1", Value: in.Body}, nil
	}))
	require.NoError(t, app.Delete(s, "/todos/:id", func(context.Context, struct{}) (app.NoContent, error) {
		return app.NoContent{}, nil
	}))
	require.NoError(t, app.Put(s, "/todos/:id", func(context.Context, struct{}) (string, error) { return "queued", nil },
		app.Status(http.StatusAccepted)))
	require.NoError(t, app.Patch(s, "/todos/:id", func(_ context.Context, in patchTodoIn) (newTodo, error) {
		if in.Q.Value.Dry {
			return newTodo{}, httpx.NewError(http.StatusConflict, "DRY", "dry run")
		}
		return in.Body.Value, nil
	}))
	require.NoError(t, app.Handle(s, "REPORT", "/todos", func(context.Context, struct{}) (*newTodo, error) {
		return nil, errors.New("boom")
	}))

	tests := []struct {
		name, method, target, body string
		status                     int
		want, location             string
	}{
		{"created", "POST", "/todos", `{"title":"milk"}`, 201, `{"title":"milk","done":false}`, "/todos/1"},
		{"created with an invalid body", "POST", "/todos", `{"title":""}`, 400,
			`"validation":[{"path":"body/title","rule":"required","message":"is required"}]`, ""},
		{"created with a member named in another case", "POST", "/todos", `{"Title":"x"}`, 400, `Title`, ""},
		{"no content", "DELETE", "/todos/3", "", 204, "", ""},
		{"status", "PUT", "/todos/3", "", 202, "queued", ""},
		{"default 200 with wrappers", "PATCH", "/todos/3", `{"title":"a","done":true}`, 200, `{"title":"a","done":true}`, ""},
		{"an error", "PATCH", "/todos/3?dry=true", `{"title":"a"}`, 409, `dry run`, ""},
		{"an error through the error handler", "REPORT", "/todos", "", 500, `Internal Server Error`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var header []string
			if tt.body != "" {
				header = []string{"Content-Type", "application/json"}
			}
			res := apptest.Do(t, s, tt.method, tt.target, strings.NewReader(tt.body), header...)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.location, res.Header.Get("Location"))
			if tt.status < 300 && tt.want != "" && tt.want[0] == '{' {
				assert.JSONEq(t, tt.want, res.Body)
			} else if tt.want == "" {
				assert.Empty(t, res.Body)
			} else {
				assert.Contains(t, res.Body, tt.want)
			}
		})
	}
}

// TestTypedRouteFillingCostsNoMoreThanQuery compares the allocations of
// a request served by a typed route whose In struct takes a query value
// with those of the same route taking Query[T] through TypedValue, the
// fast path before typed routes; and a path value costs no allocation
// (the decoded fields' struct is pooled, and there is no slice per value).
func TestTypedRouteFillingCostsNoMoreThanQuery(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector")
	}
	type q struct {
		N int `query:"n" validate:"max=10"`
	}
	type in struct {
		app.In
		N     int `query:"n" validate:"max=10"`
		Store *todoStore
	}
	type pathIn struct {
		app.In
		ID    int `path:"id"`
		Store *todoStore
	}
	s := app.New()
	require.NoError(t, s.Decorate(&todoStore{}))
	require.NoError(t, app.Get(s, "/typed", func(_ context.Context, in in) (int, error) { return in.N, nil }))
	require.NoError(t, s.Get("/query", app.TypedValue(func(q app.Query[q]) (int, error) { return q.Value.N, nil })))
	require.NoError(t, app.Get(s, "/path/:id", func(_ context.Context, in pathIn) (int, error) { return in.ID, nil }))
	require.NoError(t, app.Get(s, "/none/:id", func(context.Context, struct{}) (int, error) { return 3, nil }))
	require.NoError(t, s.Ready())
	allocs := func(target string) float64 { return allocsPerRequest(t, s, target, "3") }
	typed, query := allocs("/typed?n=3"), allocs("/query?n=3")
	path, none := allocs("/path/3"), allocs("/none/3")
	t.Logf("allocations per request: typed route %v, Query[T] %v; path field %v, no input %v", typed, query, path, none)
	assert.LessOrEqual(t, typed, query, "a typed route's In struct costs what Query[T] costs")
	assert.Equal(t, none, path, "a path field costs nothing: its struct comes from a pool")
}

// TestPrintRoutesMarksReflectiveHandlers checks the marker a test can use
// to show that routes call their handlers directly.
func TestPrintRoutesMarksReflectiveHandlers(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Decorate(&todoStore{}))
	require.NoError(t, s.Get("/plain", func(*todoStore) error { return nil }))
	require.NoError(t, app.Get(s, "/typed", func(context.Context, struct{}) (string, error) { return "", nil }))
	require.NoError(t, s.Get("/shape", func(*httpx.Reply) error { return nil }))
	require.NoError(t, s.Ready())
	assert.Equal(t, `/
├── plain (GET, HEAD) root
│     • handler: by reflection
├── shape (GET, HEAD) root
└── typed (GET, HEAD) root
`, s.PrintRoutes(app.IncludeHooks()))
}

// TestQueryDefault checks that Query[T] reads default tags too.
func TestQueryDefault(t *testing.T) {
	t.Parallel()
	type page struct {
		Limit  int  `query:"limit" default:"20" validate:"min=1,max=100"`
		Offset *int `query:"offset" default:"0"`
	}
	s := app.New()
	require.NoError(t, s.Get("/", func(q app.Query[page]) (map[string]int, error) {
		return map[string]int{"limit": q.Value.Limit, "offset": *q.Value.Offset}, nil
	}))
	checkGets(t, s, []getCase{
		{"defaults", "/", 200, `{"limit":20,"offset":0}`},
		{"values", "/?limit=5&offset=10", 200, `{"limit":5,"offset":10}`},
		{"an empty value is present", "/?limit=", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",` +
			`"message":"querystring/limit must be integer","validation":[{"path":"querystring/limit","rule":"type","message":"must be integer"}]}`},
	})
}

type routeTenant struct{ name string }

type routeTenantIn struct {
	app.In
	ID     int `path:"id"`
	Tenant *routeTenant
}

// TestTypedRouteTakesRequestValues checks that a typed route's In struct
// gets a request-scoped value beside its path field, built per request.
func TestTypedRouteTakesRequestValues(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.ProvideRequest(func(r *httpx.Request) *routeTenant { return &routeTenant{name: r.Raw().Header.Get("X-Tenant")} }))
	require.NoError(t, app.Get(s, "/t/:id", func(_ context.Context, in routeTenantIn) (string, error) {
		return in.Tenant.name + "/" + strconv.Itoa(in.ID), nil
	}))
	for _, name := range []string{"a", "b"} {
		status, body, _ := do(t, s, "GET", "/t/7", "X-Tenant", name)
		assert.Equal(t, 200, status)
		assert.Equal(t, name+"/7", body)
	}
}

// TestTypedRouteFailingCommitAnswers checks that a typed route's Out is
// sent after the request values' cleanups, whatever status it declares:
// a commit that fails answers 500, and nothing of the success reply (its
// status, its Location header) reaches the client.
func TestTypedRouteFailingCommitAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range failingCommitRoutes() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var committed []bool
			s := failingCommitServer(t, &committed)
			require.NoError(t, tt.register(s))
			res := apptest.Do(t, s, "POST", "/", nil)
			assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
			assert.Contains(t, res.Body, "request value cleanup failed: commit refused")
			assert.Empty(t, res.Header.Get("Location"))
			assert.Equal(t, []bool{true}, committed, "the commit ran once, before the reply")
		})
	}
}

// failingCommitRoute is a typed route at POST / whose Out declares a
// success reply, for a server whose commit fails.
type failingCommitRoute struct {
	name     string
	status   int // the success status the route declares
	register func(s *app.Server) error
}

func failingCommitRoutes() []failingCommitRoute {
	type txIn struct {
		app.In
		Tx *routeTenant
	}
	return []failingCommitRoute{
		{"plain Out", http.StatusOK, func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, txIn) (string, error) { return "saved", nil })
		}},
		{"Created", http.StatusCreated, func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, txIn) (app.Created[newTodo], error) {
				return app.Created[newTodo]{Location: "/todos/1", Value: newTodo{Title: "milk"}}, nil
			})
		}},
		{"NoContent", http.StatusNoContent, func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, txIn) (app.NoContent, error) { return app.NoContent{}, nil })
		}},
		{"Status", http.StatusAccepted, func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, txIn) (string, error) { return "queued", nil },
				app.Status(http.StatusAccepted))
		}},
		{"Redirect", http.StatusSeeOther, func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, txIn) (app.Redirect, error) { return app.Redirect{Location: "/todos/1"}, nil })
		}},
	}
}

// failingCommitServer is a server whose request value *routeTenant has a
// cleanup that refuses to commit; committed records, call by call,
// whether the cleanup was asked to commit.
func failingCommitServer(t *testing.T, committed *[]bool) *app.Server {
	t.Helper()
	s := app.New(app.WithLogger(zap.NewNop()), app.WithServerErrorText())
	require.NoError(t, s.ProvideRequest(app.Provider(func(context.Context, struct{}) (*routeTenant, func(bool) error, error) {
		return &routeTenant{}, func(failed bool) error {
			*committed = append(*committed, !failed)
			return errors.New("commit refused")
		}, nil
	})))
	return s
}

// TestFailingCommitUndoesTheSuccessStatus: an error handler of the
// user's that sends without choosing a status answers a failed commit
// with the status the reply had before the Out applied its own — the
// same as a plain Out's route — never the success status (201, 204,
// 202) nor its Location header, and the error is in the body.
func TestFailingCommitUndoesTheSuccessStatus(t *testing.T) {
	t.Parallel()
	answer := func(t *testing.T, route failingCommitRoute) *apptest.Response {
		t.Helper()
		var committed []bool
		s := failingCommitServer(t, &committed)
		require.NoError(t, s.SetErrorHandler(func(rep *httpx.Reply, err error) error {
			return rep.Send(map[string]string{"error": err.Error()})
		}))
		require.NoError(t, route.register(s))
		return apptest.Do(t, s, "POST", "/", nil)
	}
	routes := failingCommitRoutes()
	plain := answer(t, routes[0])
	require.NotEqual(t, http.StatusCreated, plain.StatusCode)
	for _, tt := range routes[1:] {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := answer(t, tt)
			assert.NotEqual(t, tt.status, res.StatusCode, "the success status is undone")
			assert.Equal(t, plain.StatusCode, res.StatusCode, "as a plain Out's route answers")
			assert.JSONEq(t, `{"error":"request value cleanup failed: commit refused"}`, res.Body)
			assert.Empty(t, res.Header.Get("Location"))
		})
	}
}

// TestNoContentAndCreatedFromAnyHandler: NoContent and Created answer as
// they declare from any handler that returns them, not only a typed
// route's.
func TestNoContentAndCreatedFromAnyHandler(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Delete("/plain", func() (app.NoContent, error) { return app.NoContent{}, nil }))
	require.NoError(t, s.Post("/plain", func() (app.Created[newTodo], error) {
		return app.Created[newTodo]{Location: "/todos/1", Value: newTodo{Title: "milk"}}, nil
	}))
	for _, tt := range []struct {
		method         string
		status         int
		body, location string
	}{
		{"DELETE", http.StatusNoContent, "", ""},
		{"POST", http.StatusCreated, `{"title":"milk","done":false}`, "/todos/1"},
	} {
		status, body, header := do(t, s, tt.method, "/plain")
		assert.Equal(t, tt.status, status, tt.method)
		assert.Equal(t, tt.body, body, tt.method)
		assert.Equal(t, tt.location, header.Get("Location"), tt.method)
	}
}

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
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid status 204: Status takes a success status with a body, 200 to 299 but 204, or a Redirect's status, 301, 302, 303, 307 or 308"},
		{"rules on a group", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, groupRule) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET / (root) has an invalid input struct: app_test.groupRule.Page is a group of query values: " +
			"a validate tag goes on its fields"},
		{"a header field in a query group", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, mixedGroup) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET / (root) has an invalid input struct: app_test.mixedGroup.Page.Trace is in a group of query values, " +
			"so it cannot be tagged header"},
		{"a group with a name", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, namedGroup) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET / (root) has an invalid input struct: app_test.namedGroup.Page: cannot decode app_test.pageQuery from text; " +
			`to read its fields as query values, tag it query:""`},
		{"an unexported field in a group", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, hiddenInGroup) (string, error) { return "", nil })
		}, app.ErrInvalidInput, "route GET / (root) has an invalid input struct: app_test.hiddenInGroup.Page.offset is not exported, so it cannot be set"},
		{"an embedded pointer", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, embeddedPointer) (string, error) { return "", nil })
		}, app.ErrInvalidHandler, "route GET / (root) has an invalid handler: app_test.embeddedPointer embeds *app_test.Filters: " +
			"embed app_test.Filters by value, whose fields Burrow fills in place"},
		{"an untagged field where a path parameter is", func(s *app.Server) error {
			return app.Get(s, "/todos/:id", func(context.Context, untaggedID) (string, error) { return "", nil })
		}, scope.ErrNotVisible, "route GET /todos/:id (root) needs service int64, which no context provides; " +
			`did you mean to tag the field ID path:"id"?`},
		{"an untagged field where two path parameters are", func(s *app.Server) error {
			return app.Get(s, "/:owner/:name", func(context.Context, untaggedOneOfTwo) (string, error) { return "", nil })
		}, scope.ErrNotVisible, "route GET /:owner/:name (root) needs service string, which no context provides; " +
			`did you mean to tag the field Slug path:"…", one of owner, name?`},
		{"an untagged field where a body is", func(s *app.Server) error {
			return app.Post(s, "/todos", func(context.Context, untaggedBody) (string, error) { return "", nil })
		}, scope.ErrNotVisible, "route POST /todos (root) needs service app_test.newTodo, which no context provides; " +
			`did you mean to tag the field Todo body:""?`},
		{"no body hint on a GET", func(s *app.Server) error {
			return app.Get(s, "/todos", func(context.Context, untaggedBody) (string, error) { return "", nil })
		}, scope.ErrNotVisible, "route GET /todos (root) needs service app_test.newTodo, which no context provides"},
		{"Params' tag in an In struct", func(s *app.Server) error {
			return app.Get(s, "/todos/:id", func(context.Context, paramTagged) (string, error) { return "", nil })
		}, app.ErrInvalidInput, `route GET /todos/:id (root) has an invalid handler: app_test.paramTagged.ID is tagged param:"id", ` +
			`as a Params struct's field is: an In struct's path parameter is tagged path:"id"`},
		{"a group without its tag", func(s *app.Server) error {
			return app.Get(s, "/todos", func(context.Context, untaggedGroup) (string, error) { return "", nil })
		}, scope.ErrNotVisible, "route GET /todos (root) needs service app_test.pageQuery, which no context provides; " +
			`the fields of app_test.pageQuery have Burrow's tags: tag the field Page query:"" to read them, or embed app_test.pageQuery`},
		{"a default on a body", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, bodyDefault) (string, error) { return "", nil })
		}, app.ErrInvalidInput, `route POST / (root) has an invalid handler: app_test.bodyDefault.Body: ` +
			`a body takes no default; an absent body is refused with validate:"required" or decoded as the zero value`},
		{"a bound on a struct body", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, structBound) (string, error) { return "", nil })
		}, app.ErrInvalidConstraint, `route POST / (root) has an invalid body type: app_test.structBound.Body: min="1" on app_test.newTodo`},
		{"a hook that declares other body rules", func(s *app.Server) error {
			_ = s.AddHook(app.PreHandler, func(otherBatchRules) error { return nil })
			return app.Post(s, "/", func(context.Context, batchIn) (string, error) { return "", nil })
		}, app.ErrInvalidInput, `route POST / (root) has an invalid preHandler hook: the body's rules are declared by ` +
			`app_test.batchIn.Body and, differently, by app_test.otherBatchRules.Body`},
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
