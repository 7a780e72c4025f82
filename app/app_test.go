package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// do injects one request and returns its status, body and headers.
func do(t *testing.T, s *app.Server, method, target string, header ...string) (int, string, http.Header) {
	t.Helper()
	res := apptest.Do(t, s, method, target, nil, header...)
	return res.StatusCode, res.Body, res.Header
}

// allocsPerRequest is the allocations of a GET of target on s, once the
// pools are warm; the answer must be want. Its caller cannot be parallel:
// testing.AllocsPerRun counts the whole process's allocations.
func allocsPerRequest(t *testing.T, s *app.Server, target, want string) float64 {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r) // warm the pools
	require.Equal(t, want, w.Body.String())
	return testing.AllocsPerRun(200, func() {
		w.Body.Reset()
		s.ServeHTTP(w, r)
	})
}

// getCase is one GET of a table and the answer it expects.
type getCase struct {
	name, target string
	status       int
	body         string
}

// checkGets sends each case's GET to s, one parallel subtest a case.
func checkGets(t *testing.T, s *app.Server, tests []getCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, _ := do(t, s, "GET", tt.target)
			assert.Equal(t, tt.status, status, tt.target)
			assert.Equal(t, tt.body, body, tt.target)
		})
	}
}

func TestMutationAfterReadyFails(t *testing.T) {
	t.Parallel()
	s := app.New()
	var child *app.Server
	require.NoError(t, s.Register(func(c *app.Server) error { child = c; return nil }))
	require.NoError(t, s.Ready())
	require.NotNil(t, child)
	noop := func(*httpx.Request, *httpx.Reply) error { return nil }
	for _, h := range []*app.Server{s, child} {
		calls := map[string]error{
			"Register":           h.Register(func(*app.Server) error { return nil }),
			"DecorateRequest":    h.DecorateRequest("late", 1),
			"Decorate":           h.Decorate(42),
			"Route":              h.Get("/late", noop),
			"AddHook":            h.AddHook(app.OnRequest, noop),
			"SetErrorHandler":    h.SetErrorHandler(func(error) {}),
			"SetNotFoundHandler": h.SetNotFoundHandler(noop),
		}
		for name, err := range calls {
			assert.ErrorIs(t, err, app.ErrAlreadyStarted, "%s from %s", name, h.Path())
		}
	}
	status, _, _ := do(t, s, "GET", "/late")
	assert.Equal(t, http.StatusNotFound, status)
}

func TestRequestDecoratorRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server)
		err   error
	}{
		{"child redeclares a root decorator", func(s *app.Server) {
			s.DecorateRequest("x", 1)
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 2) }, app.Name("child"))
		}, scope.ErrDuplicate},
		{"same name twice in one context", func(s *app.Server) {
			s.DecorateRequest("x", 1)
			s.DecorateRequest("x", 1)
		}, scope.ErrDuplicate},
		{"siblings may use the same name", func(s *app.Server) {
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 1) }, app.Name("a"))
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 2) }, app.Name("b"))
		}, nil},
		{"a parent may declare after a child did (the child is already loaded)", func(s *app.Server) {
			s.Register(func(c *app.Server) error { return c.DecorateRequest("x", 1) }, app.Name("a"))
			s.Register(func(c *app.Server) error { return nil }, app.Name("b"))
		}, nil},
		{"untyped nil value", func(s *app.Server) { s.DecorateRequest("x", nil) }, app.ErrInvalidDecorator},
		{"empty name", func(s *app.Server) { s.DecorateRequest("", 1) }, app.ErrInvalidDecorator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			tt.build(s)
			err := s.Ready()
			if tt.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.err)
		})
	}
}

func TestDuplicateDecoratorErrorSaysWhere(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("user", "")
	s.Register(func(c *app.Server) error { return c.DecorateRequest("user", "") }, app.Name("auth"))
	err := s.Ready()
	var de *scope.DuplicateError
	require.ErrorAs(t, err, &de)
	var pe *app.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "auth", pe.Plugin)
	assert.Equal(t, "root > auth", pe.Context)
	assert.Contains(t, err.Error(), `request decorator "user" is already declared in ancestor context root`)
}

type counter struct{ n int }

// Not parallel: testing.AllocsPerRun refuses to run beside other tests.
func TestServicesAreResolvedOnceAtStartup(t *testing.T) {
	built := 0
	s := app.New()
	require.NoError(t, s.Decorate(func() *counter { built++; return &counter{} }))
	require.NoError(t, s.DecorateRequest("answer", 42))
	type deps struct {
		app.In
		C      *counter
		Answer int `name:"answer"`
	}
	require.NoError(t, s.Get("/", func(rep *httpx.Reply, d deps) error {
		d.C.n++
		return rep.Send(d.Answer)
	}))
	require.NoError(t, s.Ready())
	assert.Equal(t, 1, built, "the constructor runs once, at Ready")
	for range 100 {
		status, body, _ := do(t, s, "GET", "/")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "42", body)
	}
	assert.Equal(t, 1, built, "requests never reach dig")

	// A dig Invoke costs some 66 allocations; a whole request here costs
	// far fewer, so none can be happening per request.
	req := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	allocs := testing.AllocsPerRun(200, func() {
		w.Body.Reset()
		s.ServeHTTP(w, req)
	})
	assert.Less(t, allocs, 20.0)
}

func TestServiceShadowingAndErrors(t *testing.T) {
	t.Parallel()
	type DB struct{ name string }
	s := app.New()
	require.NoError(t, s.Decorate(&DB{name: "root"}))
	s.Register(func(c *app.Server) error {
		c.Decorate(&DB{name: "child"})
		return c.Get("/child", func(db *DB) (string, error) { return db.name, nil })
	}, app.Name("child"))
	s.Get("/root", func(db *DB) (string, error) { return db.name, nil })
	require.NoError(t, s.Ready())
	_, body, _ := do(t, s, "GET", "/child")
	assert.Equal(t, "child", body)
	_, body, _ = do(t, s, "GET", "/root")
	assert.Equal(t, "root", body)

	// Twice in one context is refused.
	s2 := app.New()
	s2.Decorate(&DB{})
	assert.ErrorIs(t, s2.Decorate(&DB{}), scope.ErrDuplicate)

	// A service only a sibling provides is named in the error.
	s3 := app.New()
	s3.Register(func(c *app.Server) error { return c.Decorate(&DB{}) }, app.Name("db"))
	s3.Register(func(c *app.Server) error {
		return c.Get("/x", func(*DB) error { return nil })
	}, app.Name("api"))
	err := s3.Ready()
	require.ErrorIs(t, err, scope.ErrNotVisible)
	assert.Contains(t, err.Error(), "route GET /x (root > api) needs service *app_test.DB, which is only provided in sibling context root > db")
}

func TestNamedServicesAndOptionalFields(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Decorate("primary", app.Named("dsn"))
	type deps struct {
		app.In
		DSN     string  `name:"dsn"`
		Missing *string `name:"nope" optional:"true"`
		Absent  string  `name:"ghost" optional:"true"`
	}
	s.Get("/", func(d deps) (map[string]any, error) {
		return map[string]any{"dsn": d.DSN, "missing": d.Missing == nil, "absent": d.Absent}, nil
	})
	_, body, _ := do(t, s, "GET", "/")
	assert.JSONEq(t, `{"dsn":"primary","missing":true,"absent":""}`, body)
}

func TestHandlerSignatures(t *testing.T) {
	t.Parallel()
	type payload struct {
		A string `json:"a"`
	}
	tests := []struct {
		name    string
		handler any
		status  int
		body    string
	}{
		{"request and reply", func(req *httpx.Request, rep *httpx.Reply) error { return rep.Send("ok") }, 200, "ok"},
		{"no error result", func(rep *httpx.Reply) { rep.Code(201).Send("made") }, 201, "made"},
		{"value result", func() (payload, error) { return payload{A: "<b>"}, nil }, 200, `{"a":"<b>"}`},
		{"request-only value", func(req *httpx.Request) (any, error) { return req.Param("id"), nil }, 200, "7"},
		{"returns nothing, sends nothing", func() {}, 200, ""},
		{"error result", func() error { return errors.New("boom") }, 500, `{"statusCode":500,"error":"Internal Server Error","message":"boom"}`},
		{"typed error", func() error { return httpx.NewError(409, "E_CONFLICT", "taken") }, 409, `{"statusCode":409,"code":"E_CONFLICT","error":"Conflict","message":"taken"}`},
		{"typed error below 400", func() error { return httpx.NewError(302, "", "nope") }, 500, `{"statusCode":500,"error":"Internal Server Error","message":"nope"}`},
		{"wrapped typed error", func() error { return errorsJoin(httpx.NewError(418, "", "teapot")) }, 418, `{"statusCode":418,"error":"I'm a teapot","message":"teapot"}`},
		{"value and error", func() (string, error) { return "ignored", httpx.NewError(400, "", "bad") }, 400, `{"statusCode":400,"error":"Bad Request","message":"bad"}`},
		{"panic", func() error { panic("kaboom") }, 500, internalError},
		{"context and logger", func(req *httpx.Request, rep *httpx.Reply) error {
			if req.Context() == nil || req.Log() == nil {
				return errors.New("missing built-ins")
			}
			return rep.Code(204).Send(nil)
		}, 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			require.NoError(t, s.Get("/x/:id", tt.handler))
			status, body, _ := do(t, s, "GET", "/x/7")
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.body, body)
			// The server keeps serving after a failure.
			status, _, _ = do(t, s, "GET", "/x/7")
			assert.Equal(t, tt.status, status)
		})
	}
}

func errorsJoin(err error) error { return errors.Join(errors.New("context"), err) }

func TestInvalidHandlersFailReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler any
	}{
		{"not a function", 42},
		{"nil", nil},
		{"three results", func() (int, int, error) { return 0, 0, nil }},
		{"non-error single result", func() int { return 0 }},
		{"variadic", func(...int) error { return nil }},
		{"In pointer", func(*struct{ app.In }) error { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := app.New()
			s.Get("/", tt.handler)
			err := s.Ready()
			require.ErrorIs(t, err, app.ErrInvalidHandler)
			var re *app.RouteError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, "/", re.Path)
		})
	}
}

func TestDecoratorTypeMismatchFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.DecorateRequest("answer", 42)
	type deps struct {
		app.In
		Answer string `name:"answer"`
	}
	s.Get("/", func(deps) error { return nil })
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrDecoratorType)
	assert.Contains(t, err.Error(), `needs request decorator "answer" as string (field Answer), but it holds int`)
}

func TestPrefixesAndParams(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(func(v1 *app.Server) error {
		v1.Get("/", func() (string, error) { return "index", nil })
		v1.Get("/users/:id", func(req *httpx.Request) (any, error) { return req.Param("id"), nil })
		return v1.Register(func(admin *app.Server) error {
			return admin.Get("/files/*", func(req *httpx.Request) (any, error) { return req.Param("*"), nil })
		}, app.Prefix("admin"))
	}, app.Prefix("/v1/"))
	tests := []struct{ path, body string }{
		{"/v1", "index"},
		{"/v1/", "index"},
		{"/v1/users/42", "42"},
		{"/v1/users/a%2Fb", "a/b"},
		{"/v1/admin/files/a/b.txt", "a/b.txt"},
		{"/v1/admin/files/", ""},
	}
	for _, tt := range tests {
		status, body, _ := do(t, s, "GET", tt.path)
		assert.Equal(t, http.StatusOK, status, tt.path)
		assert.Equal(t, tt.body, body, tt.path)
	}
	status, _, _ := do(t, s, "GET", "/users/42")
	assert.Equal(t, http.StatusNotFound, status, "routes are prefixed")
	status, _, _ = do(t, s, "GET", "/v1/users/"+strings.Repeat("x", 101))
	assert.Equal(t, http.StatusNotFound, status, "a parameter over the length limit does not match")
}

// TestRouteMethodIsAnUpperCaseToken: one rule for a method, RFC 9110's
// token starting with an upper-case letter and holding no lower-case one,
// whether Route is given it or an OnRoute hook sets it (which failed
// later, in the router's words, or not at all).
func TestRouteMethodIsAnUpperCaseToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		ok     bool
	}{
		{"GET", true}, {"PURGE", true}, {"M-SEARCH", true}, {"BASELINE-CONTROL", true}, {"X_1.2", true},
		{httpx.AnyMethod, true},
		{"", false}, {"get", false}, {"Get", false}, {"GET,POST", false}, {"(GET)", false}, {"G ET", false},
		{"GÉT", false}, {"123", false}, {"-GET", false}, {"GET\x00", false}, {"GET\n", false}, {"GET/1", false},
		{"**", false},
	} {
		t.Run(fmt.Sprintf("%q", tt.method), func(t *testing.T) {
			t.Parallel()
			noop := func() {}
			err := app.New().Route(tt.method, "/", noop)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				require.ErrorIs(t, err, httpx.ErrInvalidMethod)
				assert.EqualError(t, err, fmt.Sprintf("invalid method %q in root: a method is an upper-case token", tt.method))
			}

			s := app.New()
			require.NoError(t, s.OnRoute(func(ro *app.RouteSpec) error { ro.Method = tt.method; return nil }))
			require.NoError(t, s.Post("/", noop))
			err = s.Ready()
			if tt.ok || tt.method == "" { // an empty one drops the route
				assert.NoError(t, err)
			} else {
				require.ErrorIs(t, err, httpx.ErrInvalidMethod)
				assert.EqualError(t, err, fmt.Sprintf("route POST / (root) was given method %q by an onRoute hook: a method is an upper-case token",
					tt.method))
			}
		})
	}
}

func TestDuplicateRouteAcrossContextsFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	h := func() error { return nil }
	s.Register(func(c *app.Server) error { return c.Get("/same", h) }, app.Name("a"))
	s.Register(func(c *app.Server) error { return c.Get("/same", h) }, app.Name("b"))
	err := s.Ready()
	require.ErrorIs(t, err, httpx.ErrDuplicateRoute)
	assert.Contains(t, err.Error(), "root > b")
}

func TestExplicitHeadRouteWinsOverTwin(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/r", func() (string, error) { return "get", nil })
	s.Head("/r", func(rep *httpx.Reply) error { rep.SetHeader("X-Head", "1"); return rep.Send(nil) })
	_, _, h := do(t, s, "HEAD", "/r")
	assert.Equal(t, "1", h.Get("X-Head"))
}

func TestJSONReplyHeaders(t *testing.T) {
	t.Parallel()
	s := app.New()
	big := strings.Repeat("x", 5000)
	s.Get("/big", func() (map[string]string, error) { return map[string]string{"v": big}, nil })
	srv := httptest.NewServer(s)
	defer srv.Close()
	require.NoError(t, s.Ready())
	res, err := http.Get(srv.URL + "/big")
	require.NoError(t, err)
	defer res.Body.Close()
	var got map[string]string
	require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
	assert.Equal(t, big, got["v"])
	assert.Equal(t, int64(len(big)+8), res.ContentLength, "exact Content-Length, never chunked")
	assert.Empty(t, res.TransferEncoding)
}

func TestNotReadyAnswers503(t *testing.T) {
	t.Parallel()
	s := app.New()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.JSONEq(t, `{"statusCode":503,"error":"Service Unavailable","message":"Server is not ready"}`, w.Body.String())
}

func TestRegisterRejectsNonPlugins(t *testing.T) {
	t.Parallel()
	s := app.New()
	assert.ErrorIs(t, s.Register(42), app.ErrInvalidPlugin)
	assert.ErrorIs(t, s.Register((*app.Plugin)(nil)), app.ErrInvalidPlugin)
	assert.ErrorIs(t, s.Ready(), app.ErrInvalidPlugin, "a failed registration also fails Ready")
}

func TestRequestIDHeader(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestIDHeader("X-Request-Id"))
	s.Get("/", func(req *httpx.Request) (string, error) { return req.ID(), nil })
	for _, tt := range []struct {
		sent, want string
	}{
		{"3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70", "3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70"},
		{"trace:01HZX.ab_c", "trace:01HZX.ab_c"},
		{"", "req-"},
		{strings.Repeat("a", 129), "req-"},
		{"has space", "req-"},
		{"quote\"d", "req-"},
	} {
		_, body, _ := do(t, s, "GET", "/", "X-Request-Id", tt.sent)
		if tt.want == "req-" {
			assert.True(t, strings.HasPrefix(body, "req-"), "%q gave %q", tt.sent, body)
		} else {
			assert.Equal(t, tt.want, body)
		}
	}
}
