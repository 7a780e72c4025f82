package app_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// ran records which named hooks ran, so the printed chain can be compared
// with the order they really run in.
var ran trace

func rootFirst()        { ran.hook("rootFirst")() }
func rootAfterward()    { ran.hook("rootAfterward")() }
func childHook()        { ran.hook("childHook")() }
func grandchildHook()   { ran.hook("grandchildHook")() }
func routeHook()        { ran.hook("routeHook")() }
func rootPreHandler()   { ran.hook("rootPreHandler")() }
func childPreHandler()  { ran.hook("childPreHandler")() }
func handlerForPrint()  {}
func siblingOnRequest() { ran.hook("siblingOnRequest")() }

func TestPrintRoutesShowsTheHookChainInRunOrder(t *testing.T) {
	s := app.New()
	s.AddHook(app.OnRequest, rootFirst)
	s.Register(func(c *app.Server) error {
		c.AddHook(app.PreHandler, childPreHandler)
		c.Register(func(g *app.Server) error {
			g.Get("/users/:id", handlerForPrint, app.WithHook(app.OnRequest, routeHook))
			return g.AddHook(app.OnRequest, grandchildHook)
		}, app.Name("grandchild"))
		c.Get("/users", handlerForPrint)
		return c.AddHook(app.OnRequest, childHook)
	}, app.Name("child"))
	s.Register(func(c *app.Server) error {
		c.AddHook(app.OnRequest, siblingOnRequest)
		return c.Post("/other", handlerForPrint)
	}, app.Name("sibling"))
	s.AddHook(app.OnRequest, rootAfterward)
	s.AddHook(app.PreHandler, rootPreHandler)
	require.NoError(t, s.Ready())

	assert.Equal(t, `/
├── other (POST) root > sibling
│     • onRequest: rootFirst, rootAfterward, siblingOnRequest
│     • preHandler: rootPreHandler
└── users (GET, HEAD) root > child
      • onRequest: rootFirst, rootAfterward, childHook
      • preHandler: rootPreHandler, childPreHandler
    └── :id (GET, HEAD) root > child > grandchild
          • onRequest: rootFirst, rootAfterward, childHook, grandchildHook, routeHook
          • preHandler: rootPreHandler, childPreHandler
`, s.PrintRoutes(app.IncludeHooks()))

	// The printed chain is the one that runs.
	ran.take()
	status, _, _ := do(t, s, "GET", "/users/7")
	require.Equal(t, 200, status)
	assert.Equal(t, "rootFirst rootAfterward childHook grandchildHook routeHook rootPreHandler childPreHandler", ran.take())

	assert.Equal(t, `/
├── other (POST) root > sibling
└── users (GET, HEAD) root > child
    └── :id (GET, HEAD) root > child > grandchild
`, s.PrintRoutes())
}

// TestPrintRoutesShowsEachRouteOfAPath: the routes of one path are drawn
// together while they agree, and apart where they differ — a reflective
// PATCH beside a direct GET, a hook of one route's own, a method
// registered in another context — so no route's marker or hook chain
// hides behind another's.
func TestPrintRoutesShowsEachRouteOfAPath(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, app.Get(s, "/todos/:id", func(context.Context, struct{}) (string, error) { return "", nil }))
	require.NoError(t, app.Put(s, "/todos/:id", func(context.Context, struct{}) (string, error) { return "", nil }))
	require.NoError(t, s.Patch("/todos/:id", func(*httpx.Request, string) error { return nil }))
	require.NoError(t, s.Delete("/todos/:id", func() error { return nil }, app.WithHook(app.OnRequest, routeHook)))
	s.Register(func(c *app.Server) error {
		return c.Post("/todos/:id", func() error { return nil })
	}, app.Name("child"))
	s.Decorate("")
	require.NoError(t, s.Ready())

	assert.Equal(t, `/
└── todos
    └── :id (DELETE) root
          • onRequest: routeHook
        :id (GET, HEAD, PUT) root
        :id (PATCH) root
          • handler: by reflection
        :id (POST) root > child
`, s.PrintRoutes(app.IncludeHooks()))
	assert.Equal(t, `/
└── todos
    └── :id (DELETE, GET, HEAD, PATCH, PUT) root
        :id (POST) root > child
`, s.PrintRoutes(), "without hooks, routes differ by context only")
}

type clock struct{}

// introspected is a small tree with every kind of thing the printers show:
// a prefix, a wrapped plugin declaring into its parent, a service, and a
// sibling whose declaration is hidden from the others.
func introspected(t *testing.T) *app.Server {
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Decorate(clock{})
	s.Register(func(api *app.Server) error {
		api.Register(app.Wrap(func(w *app.Server) error {
			time.Sleep(2 * time.Millisecond)
			return w.DecorateRequest("user", "")
		}, app.Name("auth")))
		return api.Register(func(v1 *app.Server) error { return v1.Get("/items", func() {}) }, app.Name("v1"), app.Prefix("/v1"))
	}, app.Name("api"), app.Prefix("/api"))
	s.Register(func(admin *app.Server) error { return admin.DecorateRequest("role", "") }, app.Name("admin"))
	require.NoError(t, s.Ready())
	return s
}

var loadTime = regexp.MustCompile(`\d+\.\d\d ms`)

func TestPrintPlugins(t *testing.T) {
	t.Parallel()
	out := introspected(t).PrintPlugins()
	assert.Equal(t, `root T
├── api /api T
│   ├── auth (wrapped) T
│   └── v1 /api/v1 T
└── admin T
`, loadTime.ReplaceAllString(out, "T"))
	// Load times are real: auth slept 2 ms, and api includes it.
	times := loadTime.FindAllString(out, -1)
	require.Len(t, times, 5)
	assert.NotEqual(t, "0.00 ms", times[2], "auth's time")
}

func TestPrintVisibility(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `root
  declares  request decorator "answer" int
            service app_test.clock
  sees      request decorator "answer" int  from here
            service app_test.clock  from here
  hidden    request decorator "user" string  in root > api (by wrapped plugin auth)
            request decorator "role" string  in root > admin
root > api  [wrapped plugins: auth]
  declares  request decorator "user" string  by wrapped plugin auth
  sees      request decorator "user" string  from here (by wrapped plugin auth)
            request decorator "answer" int  from root
            service app_test.clock  from root
  hidden    request decorator "role" string  in root > admin
root > api > v1
  declares  —
  sees      request decorator "user" string  from root > api (by wrapped plugin auth)
            request decorator "answer" int  from root
            service app_test.clock  from root
  hidden    request decorator "role" string  in root > admin
root > admin
  declares  request decorator "role" string
  sees      request decorator "role" string  from here
            request decorator "answer" int  from root
            service app_test.clock  from root
  hidden    request decorator "user" string  in root > api (by wrapped plugin auth)
`, introspected(t).PrintVisibility())
}
