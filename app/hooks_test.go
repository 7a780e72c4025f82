package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// trace records what ran, in order.
type trace struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trace) hook(name string) func() {
	return func() { tr.mu.Lock(); tr.steps = append(tr.steps, name); tr.mu.Unlock() }
}

func (tr *trace) take() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := strings.Join(tr.steps, " ")
	tr.steps = nil
	return s
}

func TestHookOrderIgnoresRegistrationTiming(t *testing.T) {
	tr := &trace{}
	s := app.New()
	s.AddHook(app.OnRequest, tr.hook("root.onRequest#1"))
	s.Register(func(c *app.Server) error {
		c.AddHook(app.PreHandler, tr.hook("child.preHandler"))
		c.Register(func(g *app.Server) error {
			g.Get("/g", func() (string, error) { tr.hook("handler")(); return "ok", nil },
				app.WithHook(app.OnRequest, tr.hook("route.onRequest")),
				app.WithHook(app.PreHandler, tr.hook("route.preHandler")))
			// Added after the route: still applies, in its place.
			return g.AddHook(app.OnRequest, tr.hook("grandchild.onRequest"))
		}, app.Name("grandchild"))
		return c.AddHook(app.OnRequest, tr.hook("child.onRequest.afterRegister"))
	}, app.Name("child"))
	// Added after Register: Fastify would run this after the child's hooks.
	s.AddHook(app.OnRequest, tr.hook("root.onRequest#2"))
	s.AddHook(app.PreHandler, tr.hook("root.preHandler"))
	s.AddHook(app.OnResponse, tr.hook("root.onResponse"))
	s.AddHook(app.PreParsing, tr.hook("root.preParsing"))
	s.AddHook(app.PreValidation, tr.hook("root.preValidation"))

	status, body, _ := do(t, s, "GET", "/g")
	require.Equal(t, 200, status)
	require.Equal(t, "ok", body)
	assert.Equal(t, strings.Join([]string{
		"root.onRequest#1", "root.onRequest#2", "child.onRequest.afterRegister", "grandchild.onRequest", "route.onRequest",
		"root.preParsing", "root.preValidation",
		"root.preHandler", "child.preHandler", "route.preHandler",
		"handler", "root.onResponse",
	}, " "), tr.take())
}

func TestHooksAreEncapsulated(t *testing.T) {
	tr := &trace{}
	s := app.New()
	s.Register(func(a *app.Server) error {
		a.AddHook(app.OnRequest, tr.hook("a"))
		return a.Get("/a", func() {})
	}, app.Name("a"))
	s.Register(func(b *app.Server) error {
		// A wrapped plugin's hook lands in b itself.
		b.Register(app.Wrap(func(w *app.Server) error { return w.AddHook(app.OnRequest, tr.hook("wrapped")) }))
		// A plain plugin's hook stays in its own context.
		b.Register(func(p *app.Server) error { return p.AddHook(app.OnRequest, tr.hook("plain")) })
		return b.Get("/b", func() {})
	}, app.Name("b"))

	do(t, s, "GET", "/a")
	assert.Equal(t, "a", tr.take(), "a sibling's hooks never run")
	do(t, s, "GET", "/b")
	assert.Equal(t, "wrapped", tr.take())
}

func TestEarlyReplySkipsHandlerButNotOnSendAndOnResponse(t *testing.T) {
	tr := &trace{}
	s := app.New()
	s.AddHook(app.OnRequest, func(rep *httpx.Reply) error {
		tr.hook("onRequest")()
		return rep.Code(http.StatusTeapot).Send("early")
	})
	s.AddHook(app.PreHandler, tr.hook("preHandler"))
	s.AddHook(app.OnSend, func(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error) {
		tr.hook("onSend")()
		rep.SetHeader("X-On-Send", "1")
		return body, nil
	})
	s.AddHook(app.OnResponse, tr.hook("onResponse"))
	s.Get("/", func() { tr.hook("handler")() })
	status, body, h := do(t, s, "GET", "/")
	assert.Equal(t, http.StatusTeapot, status)
	assert.Equal(t, "early", body)
	assert.Equal(t, "1", h.Get("X-On-Send"))
	assert.Equal(t, "onRequest onSend onResponse", tr.take())
}

func TestHookReplacesDecoratorForOneRequest(t *testing.T) {
	s := app.New()
	s.DecorateRequest("user", "anonymous")
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if name := req.Header("X-User"); name != "" {
			return req.SetDecorator("user", name)
		}
		return nil
	})
	type deps struct {
		app.In
		User string `name:"user"`
	}
	s.Get("/", func(d deps) (string, error) { return d.User, nil })
	_, body, _ := do(t, s, "GET", "/", "X-User", "ada")
	assert.Equal(t, "ada", body)
	_, body, _ = do(t, s, "GET", "/")
	assert.Equal(t, "anonymous", body, "the next request starts from the declared value")

	s2 := app.New(app.WithServerErrorText())
	s2.DecorateRequest("user", "anonymous")
	s2.AddHook(app.OnRequest, func(req *httpx.Request) error { return req.SetDecorator("user", 42) })
	s2.Get("/", func() {})
	status, body, _ := do(t, s2, "GET", "/")
	assert.Equal(t, 500, status)
	assert.Contains(t, body, `request decorator \"user\" holds string, not int`)
}

func TestTypedHookParameters(t *testing.T) {
	s := app.New()
	s.DecorateRequest("role", "guest")
	type deps struct {
		app.In
		Role string `name:"role"`
	}
	s.AddHook(app.PreHandler, func(rep *httpx.Reply, d deps) error {
		if d.Role != "admin" {
			return httpx.NewError(http.StatusForbidden, "E_ROLE", "role "+d.Role+" may not")
		}
		return nil
	})
	s.Get("/", func() {})
	status, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, `{"statusCode":403,"code":"E_ROLE","error":"Forbidden","message":"role guest may not"}`, body)

	// A hook's parameters are checked at start-up like a handler's.
	s2 := app.New()
	s2.Register(func(c *app.Server) error {
		c.AddHook(app.OnRequest, func(d deps) {})
		return c.Get("/", func() {})
	}, app.Name("c"))
	err := s2.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `route GET / (root > c) has an onRequest hook that needs service string named "role", which no context provides`)
	assert.Contains(t, err.Error(), `"role"`)
}

func TestErrorHandlersFallBackToParents(t *testing.T) {
	tr := &trace{}
	s := app.New()
	s.SetErrorHandler(func(err error, rep *httpx.Reply) error {
		return rep.Code(http.StatusBadGateway).Send("root handled: " + err.Error())
	})
	s.AddHook(app.OnError, func(err error) { tr.hook("onError:" + err.Error())() })
	s.Register(func(c *app.Server) error {
		c.SetErrorHandler(func(err error) error {
			tr.hook("child handler")()
			return fmt.Errorf("child rethrows: %w", err)
		})
		c.Get("/fails", func() error { return errors.New("orig") })
		return c.Register(func(g *app.Server) error {
			g.SetErrorHandler(func(err error) error { panic("handler panics") })
			return g.Get("/panics", func() error { return errors.New("orig2") })
		}, app.Name("g"))
	}, app.Name("c"))
	s.Register(func(d *app.Server) error {
		d.SetErrorHandler(func(rep *httpx.Reply) error { return rep.Code(400).Send("own") })
		return d.Get("/own", func() error { return errors.New("x") })
	}, app.Name("d"))

	status, body, _ := do(t, s, "GET", "/fails")
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, "root handled: child rethrows: orig", body)
	assert.Equal(t, "onError:orig child handler", tr.take(), "onError hooks run before the error handler")

	status, body, _ = do(t, s, "GET", "/panics")
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, "root handled: child rethrows: panic: handler panics", body)

	status, body, _ = do(t, s, "GET", "/own")
	assert.Equal(t, 400, status)
	assert.Equal(t, "own", body)
}

func TestDefaultErrorHandlerWhenEveryHandlerFails(t *testing.T) {
	s := app.New()
	s.SetErrorHandler(func(err error) error {
		return httpx.NewError(http.StatusServiceUnavailable, "E_DOWN", "down: "+err.Error())
	})
	s.Get("/", func() error { return errors.New("orig") })
	status, body, _ := do(t, s, "GET", "/")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, `{"statusCode":503,"code":"E_DOWN","error":"Service Unavailable","message":"down: orig"}`, body)
}

func TestPanicsInHooksAndHandlersKeepServing(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		setup func(s *app.Server, fail *bool)
	}{
		{"onRequest hook", "/", func(s *app.Server, fail *bool) {
			s.AddHook(app.OnRequest, func() {
				if *fail {
					panic("onRequest panicked")
				}
			})
		}},
		{"preHandler hook", "/", func(s *app.Server, fail *bool) {
			s.AddHook(app.PreHandler, func() {
				if *fail {
					panic("preHandler panicked")
				}
			})
		}},
		{"handler", "/h", func(s *app.Server, fail *bool) {
			s.Get("/h", func() (string, error) {
				if *fail {
					panic("handler panicked")
				}
				return "fine", nil
			})
		}},
		{"error handler", "/", func(s *app.Server, fail *bool) {
			s.SetErrorHandler(func(err error) error {
				panic("error handler panicked on " + err.Error())
			})
			s.AddHook(app.PreHandler, func() error {
				if *fail {
					return errors.New("hook failed")
				}
				return nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			fail := true
			tt.setup(s, &fail)
			if tt.path == "/" {
				s.Get("/", func() (string, error) { return "fine", nil })
			}
			path := tt.path
			status, body, _ := do(t, s, "GET", path)
			assert.Equal(t, 500, status)
			assert.Equal(t, internalError, body, "the panic's value is not sent")
			fail = false
			status, body, _ = do(t, s, "GET", path)
			assert.Equal(t, 200, status, "the next request succeeds")
			assert.Equal(t, "fine", body)
		})
	}
}

func TestSendHooksReplacePayloads(t *testing.T) {
	s := app.New()
	s.AddHook(app.PreSerialization, func(req *httpx.Request, rep *httpx.Reply, p any) (any, error) {
		return map[string]any{"data": p}, nil
	})
	s.AddHook(app.OnSend, app.OnSendFunc(func(req *httpx.Request, rep *httpx.Reply, b []byte) ([]byte, error) {
		return append(b, '\n'), nil
	}))
	s.Get("/", func() ([]int, error) { return []int{1, 2}, nil })
	s.Get("/text", func() (string, error) { return "plain", nil })
	_, body, h := do(t, s, "GET", "/")
	assert.Equal(t, "{\"data\":[1,2]}\n", body)
	assert.Equal(t, "15", h.Get("Content-Length"))
	_, body, _ = do(t, s, "GET", "/text")
	assert.Equal(t, "plain\n", body, "preSerialization skips strings, onSend does not")

	s2 := app.New()
	assert.ErrorIs(t, s2.AddHook(app.OnSend, func() {}), app.ErrInvalidHandler)
	assert.ErrorIs(t, s2.AddHook(app.Hook(99), func() {}), app.ErrInvalidHandler)
}

func TestWrappedPluginHooksTakeThePlaceOfTheirRegisterCall(t *testing.T) {
	t.Parallel()
	tr := &trace{}
	s := app.New()
	s.Register(func(c *app.Server) error {
		c.AddHook(app.OnRequest, tr.hook("3"))
		c.Register(app.Wrap(func(w *app.Server) error {
			w.AddHook(app.OnRequest, tr.hook("4a"))
			w.Register(app.Wrap(func(ww *app.Server) error {
				return ww.AddHook(app.OnRequest, tr.hook("4b"))
			}, app.Name("inner")))
			return w.AddHook(app.OnRequest, tr.hook("4c"))
		}, app.Name("outer")))
		c.AddHook(app.OnRequest, tr.hook("5"))
		return c.Get("/", func() {}, app.WithHook(app.OnRequest, tr.hook("route")))
	}, app.Name("child"))
	s.AddHook(app.OnRequest, tr.hook("root"))

	status, _, _ := do(t, s, "GET", "/")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "root 3 4a 4b 4c 5 route", tr.take(),
		"in the order of the calls; ancestors first and route-level last, as before")
}

// TestOnSendSeesTheContentType: a compression or ETag hook must tell JSON
// from text, so the reply's content type is set before onSend runs.
func TestOnSendSeesTheContentType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, want string
	}{
		{"/json", "application/json; charset=utf-8"},
		{"/text", "text/plain; charset=utf-8"},
		{"/bytes", "application/octet-stream"},
		{"/raw", "application/json; charset=utf-8"},
		{"/typed", "text/csv"},
		{"/empty", ""},
	}
	s := app.New()
	s.AddHook(app.OnSend, func(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error) {
		rep.SetHeader("X-Seen-Type", rep.Header().Get("Content-Type"))
		return body, nil
	})
	s.Get("/json", func() (map[string]int, error) { return map[string]int{"a": 1}, nil })
	s.Get("/text", func() (string, error) { return "hi", nil })
	s.Get("/bytes", func() ([]byte, error) { return []byte{1}, nil })
	s.Get("/raw", func() (json.RawMessage, error) { return json.RawMessage(`1`), nil })
	s.Get("/typed", func(rep *httpx.Reply) error { return rep.Type("text/csv").Send("a,b") })
	s.Get("/empty", func() {})
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, _, h := do(t, s, "GET", tt.path)
			assert.Equal(t, tt.want, h.Get("X-Seen-Type"))
			if tt.want != "" {
				assert.Equal(t, tt.want, h.Get("Content-Type"))
			}
		})
	}
}
