package app_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

type typedDeps struct {
	app.In
	Answer int    `name:"answer"`
	Foo    string `name:"foo" optional:"true"`
	Bar    string `name:"bar" optional:"true"`
	Clock  *wallClock
}

type wallClock struct{ now string }

type typedQuery struct {
	N int `query:"n" validate:"max=10"`
}

type typedParams struct {
	ID int `param:"id"`
}

type typedBody struct {
	Name string `json:"name" validate:"required"`
}

// typedServer mounts fn at /r/:id in a child context that sees answer,
// foo and a *wallClock service, but not bar (declared in a sibling).
func typedServer(t *testing.T, fn any) *app.Server {
	t.Helper()
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Decorate(&wallClock{now: "noon"})
	s.Register(func(c *app.Server) error {
		c.DecorateRequest("foo", "foo")
		c.Get("/r/:id", fn)
		return c.Post("/r/:id", fn)
	}, app.Name("public"))
	s.Register(func(c *app.Server) error { return c.DecorateRequest("bar", "bar") }, app.Name("sibling"))
	return s
}

// inject sends body as JSON, when there is one, and returns the status,
// body and content type of the answer.
func inject(t *testing.T, s *app.Server, method, target, body string) (int, string, string) {
	t.Helper()
	var header []string
	if body != "" {
		header = []string{"Content-Type", "application/json"}
	}
	res := apptest.Do(t, s, method, target, strings.NewReader(body), header...)
	return res.StatusCode, res.Body, res.Header.Get("Content-Type")
}

// TestTypedHandlersAnswerLikeReflectiveOnes runs each shape twice, once
// as a plain function (reflect.Value.Call) and once through Typed or
// TypedValue, and expects the same answer to every request: the fast
// path changes how the function is called, nothing else.
func TestTypedHandlersAnswerLikeReflectiveOnes(t *testing.T) {
	t.Parallel()
	inStruct := func(rep *httpx.Reply, d typedDeps) error {
		return rep.Send(map[string]any{"answer": d.Answer, "foo": d.Foo, "bar": d.Bar, "clock": d.Clock.now})
	}
	body := func(b app.Body[typedBody]) (typedBody, error) { return b.Value, nil }
	query := func(q app.Query[typedQuery]) (int, error) { return q.Value.N * 2, nil }
	params := func(p app.Params[typedParams]) (int, error) { return p.Value.ID + 1, nil }
	service := func(c *wallClock) (string, error) { return c.now, nil }
	request := func(rep *httpx.Reply, req *httpx.Request) error { return rep.Send("id " + req.Param("id")) }
	failing := func(d typedDeps) (string, error) { return "", httpx.NewError(409, "E_TAKEN", "taken") }
	panicking := func(rep *httpx.Reply, d typedDeps) error { panic("kaboom") }

	tests := []struct {
		name     string
		plain    any
		typed    app.Handler
		requests [][3]string // method, target, body
	}{
		{"In struct", inStruct, app.Typed(inStruct), [][3]string{{"GET", "/r/1", ""}}},
		{"body", body, app.TypedValue(body), [][3]string{
			{"POST", "/r/1", `{"name":"ann"}`}, {"POST", "/r/1", `{"name":""}`}, {"POST", "/r/1", `{"name":1}`}, {"POST", "/r/1", `{`},
		}},
		{"query", query, app.TypedValue(query), [][3]string{{"GET", "/r/1?n=4", ""}, {"GET", "/r/1?n=x", ""}, {"GET", "/r/1?n=11", ""}, {"GET", "/r/1", ""}}},
		{"params", params, app.TypedValue(params), [][3]string{{"GET", "/r/41", ""}, {"GET", "/r/x", ""}}},
		{"service", service, app.TypedValue(service), [][3]string{{"GET", "/r/1", ""}}},
		{"built-in", request, app.Typed(request), [][3]string{{"GET", "/r/9", ""}}},
		{"error", failing, app.TypedValue(failing), [][3]string{{"GET", "/r/1", ""}}},
		{"panic", panicking, app.Typed(panicking), [][3]string{{"GET", "/r/1", ""}, {"GET", "/r/1", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, typed := typedServer(t, tt.plain), typedServer(t, tt.typed)
			for _, r := range tt.requests {
				wantStatus, wantBody, wantType := inject(t, plain, r[0], r[1], r[2])
				status, body, ctype := inject(t, typed, r[0], r[1], r[2])
				assert.Equal(t, wantStatus, status, "%v", r)
				assert.Equal(t, wantBody, body, "%v", r)
				assert.Equal(t, wantType, ctype, "%v", r)
			}
		})
	}

	// The answers themselves, so the comparison cannot pass on two
	// equally broken servers.
	status, got, _ := inject(t, typedServer(t, tests[0].typed), "GET", "/r/1", "")
	assert.Equal(t, 200, status)
	assert.JSONEq(t, `{"answer":42,"foo":"foo","bar":"","clock":"noon"}`, got)
	status, got, _ = inject(t, typedServer(t, tests[1].typed), "POST", "/r/1", `{"name":"ann"}`)
	assert.Equal(t, 200, status)
	assert.JSONEq(t, `{"name":"ann"}`, got)
}

// A Typed handler is checked at start-up like any other: asking for a
// decorator only a sibling declares names the route, the value and where
// it is provided.
func TestTypedHandlerMissingDecoratorFailsReady(t *testing.T) {
	t.Parallel()
	type needsBar struct {
		app.In
		Bar string `name:"bar"`
	}
	s := typedServer(t, app.Typed(func(rep *httpx.Reply, d needsBar) error { return nil }))
	err := s.Ready()
	var re *app.RouteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "/r/:id", re.Path)
	assert.Contains(t, err.Error(), `"bar"`)
	assert.Contains(t, err.Error(), "sibling")
	assert.ErrorIs(t, err, scope.ErrNotVisible)
	assert.EqualError(t, err, `route GET /r/:id (root > public) needs request decorator "bar", which is only provided in sibling context root > sibling`)

	var nilFn func(*httpx.Reply, typedDeps) error
	s = app.New()
	s.Get("/", app.Typed(nilFn))
	assert.ErrorIs(t, s.Ready(), app.ErrInvalidHandler)
}

// Typed works as a hook (it may answer early; printing shows the
// wrapped function's name) and as an error handler.
func TestTypedHookAndErrorHandler(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.AddHook(app.OnRequest, app.Typed(guard))
	s.Get("/", func() (string, error) { return "in", nil })
	status, body, _ := inject(t, s, "GET", "/", "")
	assert.Equal(t, 403, status)
	assert.Contains(t, body, "answer is 42")
	assert.Contains(t, s.PrintRoutes(app.IncludeHooks()), "guard")

	// As an error handler, D may be the error being handled.
	s = app.New()
	s.SetErrorHandler(app.Typed(func(rep *httpx.Reply, err error) error {
		return rep.Code(418).Send("handled: " + err.Error())
	}))
	s.Get("/", func() error { return fmt.Errorf("boom") })
	status, body, _ = inject(t, s, "GET", "/", "")
	assert.Equal(t, 418, status)
	assert.Equal(t, "handled: boom", body)

	s = app.New()
	s.AddHook(app.OnSend, app.Typed(guard))
	assert.ErrorIs(t, s.Ready(), app.ErrInvalidHandler, "onSend hooks have their own type")
}

func guard(rep *httpx.Reply, d struct {
	app.In
	Answer int `name:"answer"`
}) error {
	return rep.Code(403).Send(fmt.Sprintf("answer is %d", d.Answer))
}
