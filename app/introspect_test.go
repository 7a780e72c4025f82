package app_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

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

func TestDOT(t *testing.T) {
	assert.Equal(t, `digraph burrow {
	rankdir=TB;
	node [shape=box, fontname="Helvetica"];
	c0 [label="root\nrequest decorator \"answer\" int\nservice app_test.clock"];
	c1 [label="api\nprefix /api\nrequest decorator \"user\" string"];
	c0 -> c1;
	c1_w0 [label="auth (wrapped)", shape=note, style=dashed];
	c1 -> c1_w0 [style=dashed, arrowhead=none];
	c2 [label="v1\nprefix /api/v1"];
	c1 -> c2;
	c3 [label="admin\nrequest decorator \"role\" string"];
	c0 -> c3;
}
`, introspected(t).DOT())
}
