package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
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

// TestRefusedRegistrationNamesIt: a registration refused because the
// server started, failed to start or is closed says which one it was and
// where, and still matches the sentinel.
func TestRefusedRegistrationNamesIt(t *testing.T) {
	t.Parallel()
	started := func() *app.Server {
		s := app.New()
		s.Get("/a", func() {})
		require.NoError(t, s.Ready())
		return s
	}
	failed := func() *app.Server {
		s := app.New()
		s.Register(func(*app.Server) error { return errors.New("boom") })
		require.Error(t, s.Ready())
		return s
	}
	closed := func() *app.Server {
		s := started()
		require.NoError(t, s.Close(context.Background()))
		return s
	}
	tests := []struct {
		name   string
		server func() *app.Server
		call   func(s *app.Server) error
		is     error
		msg    string
	}{
		{"route", started, func(s *app.Server) error { return s.Get("/b", func() {}) },
			app.ErrAlreadyStarted, "route GET /b (root) registered after the server started"},
		{"plugin", started, func(s *app.Server) error { return s.Register(func(*app.Server) error { return nil }, app.Name("db")) },
			app.ErrAlreadyStarted, "plugin db (root) registered after the server started"},
		{"hook", started, func(s *app.Server) error { return s.AddHook(app.OnRequest, func() {}) },
			app.ErrAlreadyStarted, "onRequest hook (root) registered after the server started"},
		{"request decorator", started, func(s *app.Server) error { return s.DecorateRequest("user", "") },
			app.ErrAlreadyStarted, `request decorator "user" (root) registered after the server started`},
		{"mount", started, func(s *app.Server) error { return s.Mount("/static", http.NotFoundHandler()) },
			app.ErrAlreadyStarted, "mount /static (root) registered after the server started"},
		{"after a failed start", failed, func(s *app.Server) error { return s.Post("/b", func() {}) },
			app.ErrBootFailed, "route POST /b (root) registered after the server failed to start"},
		{"after Close", closed, func(s *app.Server) error { return s.OnClose(func(context.Context) error { return nil }) },
			app.ErrClosed, "OnClose hook (root) registered after Close"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.call(tt.server())
			require.ErrorIs(t, err, tt.is)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
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
		{"error result", func() error { return errors.New("boom") }, 500, internalError}, // the text stays in the log
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
