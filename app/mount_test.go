package app_test

import (
	"expvar"
	"fmt"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// echo answers with what a standard handler sees of the request.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-pattern", r.Pattern)
	fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
})

func TestMountServesEveryMethodAndPathUnderItsPrefix(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Register(func(v1 *app.Server) error {
			return v1.Mount("/echo/", echo)
		}, app.Prefix("/v1")))
		require.NoError(t, s.Register(func(p *app.Server) error { return p.Mount("/", echo) }, app.Prefix("/all")))
		require.NoError(t, s.Get("/echo", func() (string, error) { return "route", nil }))
		send := start(s)
		cases := []struct{ method, target, body, pattern string }{
			{"GET", "/v1/echo/a/b", "GET /a/b", "/v1/echo/{*...}"},
			{"DELETE", "/v1/echo/a", "DELETE /a", "/v1/echo/{*...}"},
			{"PROPFIND", "/v1/echo/", "PROPFIND /", "/v1/echo/{*...}"},
			{"POST", "/v1/echo", "POST ", "/v1/echo"},
			{"PUT", "/all/x", "PUT /x", "/all/{*...}"},
			{"GET", "/echo", "route", ""}, // outside the mounts
		}
		for _, c := range cases {
			res := send(c.method, c.target)
			assert.Equal(t, http.StatusOK, res.StatusCode, c.target)
			assert.Equal(t, c.body, res.Body, c.method+" "+c.target)
			assert.Equal(t, c.pattern, res.Header.Get("x-pattern"), c.target)
		}
		assert.Equal(t, http.StatusNotFound, send("GET", "/v1/other").StatusCode)
	})
}

func TestMountedHandlerRunsTheContextsMiddlewareAndHooks(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{"app.css": {Data: []byte("body{}")}}
	eachTransport(t, func(t *testing.T, start starter) {
		tr := &trace{}
		s := app.New()
		require.NoError(t, s.Register(func(p *app.Server) error {
			if err := p.Register(bearer.Plugin(bearer.Keys("secret"))); err != nil {
				return err
			}
			if err := p.Use(tr.mark("private.mw")); err != nil {
				return err
			}
			return p.Mount("/static", http.FileServer(http.FS(files)))
		}, app.Prefix("/private")))
		require.NoError(t, s.Register(func(p *app.Server) error {
			return p.Mount("/static", http.FileServer(http.FS(files)))
		}, app.Prefix("/public")))
		send := start(s)

		res := send("GET", "/private/static/app.css")
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
		assert.Equal(t, "private.mw", tr.take())

		auth := []string{"Authorization", "Bearer secret"}
		res = send("GET", "/private/static/app.css", auth...)
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "body{}", res.Body)
		assert.Equal(t, "private.mw", tr.take())
		assert.Equal(t, http.StatusNotFound, send("GET", "/private/static/none.css", auth...).StatusCode)
		tr.take()

		res = send("GET", "/public/static/app.css") // a sibling: no key, no middleware
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "body{}", res.Body)
		assert.Empty(t, tr.take())
	})
}

func TestStandardHandlersAsRouteHandlers(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Get("/vars", expvar.Handler()))
		require.NoError(t, s.Get("/items/:id", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %s", r.Pattern, r.PathValue("id"))
		}))
		require.NoError(t, s.Post("/echo", echo))
		send := start(s)

		res := send("GET", "/vars")
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Contains(t, res.Body, `"cmdline"`)
		assert.Equal(t, "GET /items/{id} 7", send("GET", "/items/7").Body)
		res = send("POST", "/echo")
		assert.Equal(t, "POST /echo", res.Body)
		assert.Equal(t, "POST /echo", res.Header.Get("x-pattern"))
	})
}

func TestMountAndStandardHandlerErrors(t *testing.T) {
	t.Parallel()
	s := app.New()
	for _, p := range []string{"static", "/a/:id", "/a/*", "//a"} {
		assert.ErrorIs(t, s.Mount(p, echo), httpx.ErrInvalidPath, p)
	}
	assert.ErrorIs(t, s.Mount("/a", nil), app.ErrInvalidHandler)

	s = app.New()
	require.NoError(t, s.AddHook(app.OnRequest, echo))
	require.NoError(t, s.Get("/", echo))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "standard http.Handler, which only a route or Mount may take")
}
