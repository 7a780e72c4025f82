package app_test

import (
	"bytes"
	"expvar"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

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

// TestMountStripsAnEscapedPrefix: the router matches a mount's prefix by
// the decoded text of each segment, and the mount strips it the same way,
// so a prefix the client wrote with escapes reaches the handler with the
// rest of the path, its escapes kept, instead of net/http's plain-text
// 404.
func TestMountStripsAnEscapedPrefix(t *testing.T) {
	t.Parallel()
	escaped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.URL.Path, r.URL.EscapedPath())
	})
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Mount("/static", escaped))
		require.NoError(t, s.Register(func(v1 *app.Server) error { return v1.Mount("/files", escaped) }, app.Prefix("/v1")))
		send := start(s)
		for _, c := range []struct{ target, body string }{
			{"/static/a", "/a /a"},
			{"/%73tatic/a", "/a /a"},
			{"/%73%74%61%74%69%63/a%20b", "/a b /a%20b"},
			{"/static/a%2Fb", "/a/b /a%2Fb"},
			{"/%73tatic/a%2Fb", "/a/b /a%2Fb"},
			{"/%73tatic", " "},
			{"/v%31/files/x", "/x /x"},
			{"/v1/%66iles/x%3Fy", "/x?y /x%3Fy"},
		} {
			res := send("GET", c.target)
			assert.Equal(t, http.StatusOK, res.StatusCode, c.target)
			assert.Equal(t, c.body, res.Body, c.target)
		}
		assert.Equal(t, http.StatusNotFound, send("GET", "/static%2Fa").StatusCode, "an escaped slash is not a separator")
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

// TestStandardHandlersAreBoundedForSlowClients: a mounted handler and an
// http.Handler route read and write on the connection as any route does,
// under the body time-out and the reply time-out: a client that sends 2
// of the 10 bytes it announced, or that reads nothing of a large reply,
// makes the handler's read or write fail instead of holding it forever.
func TestStandardHandlersAreBoundedForSlowClients(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 64<<10)
	reader := func(errs chan<- error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			_, err := io.ReadAll(r.Body)
			errs <- err
		}
	}
	writer := func(errs chan<- error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var err error
			for i := 0; i < 1024 && err == nil; i++ { // 64 MiB: far more than both sockets' buffers hold
				_, err = w.Write(big)
			}
			errs <- err
		}
	}
	const slowBody = "POST /std/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"
	const slowReader = "GET /std/x HTTP/1.1\r\nHost: x\r\n\r\n"
	tests := []struct {
		name    string
		handler func(chan<- error) http.HandlerFunc
		mount   bool
		request string
	}{
		{"mount, slow body", reader, true, slowBody},
		{"http.Handler route, slow body", reader, false, slowBody},
		{"mount, slow reader", writer, true, slowReader},
		{"http.Handler route, slow reader", writer, false, slowReader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := make(chan error, 1)
			s := app.New(app.WithBodyTimeout(200*time.Millisecond), app.WithReplyTimeout(200*time.Millisecond))
			if tt.mount {
				require.NoError(t, s.Mount("/std", tt.handler(errs)))
			} else {
				require.NoError(t, s.Route(strings.Fields(tt.request)[0], "/std/x", tt.handler(errs)))
			}
			c := dial(t, serve(t, s))
			require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4<<10))
			_, err := io.WriteString(c, tt.request)
			require.NoError(t, err)
			select {
			case err := <-errs:
				var ne net.Error
				require.ErrorAs(t, err, &ne)
				assert.True(t, ne.Timeout(), "%v", err)
			case <-time.After(time.Minute): // a hang, not a measure
				t.Fatal("the handler was still reading or writing after a minute")
			}
		})
	}
}

// writeDeadlines is a ResponseRecorder that, like net/http's writer,
// sets write deadlines, and records them.
type writeDeadlines struct {
	*httptest.ResponseRecorder
	set []time.Time
}

func (d *writeDeadlines) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestStandardHandlerKeepsItsOwnWriteDeadline: the reply time-out is armed
// at a standard handler's first write, unless the handler set a write
// deadline of its own before (a long download): that one stays.
func TestStandardHandlerKeepsItsOwnWriteDeadline(t *testing.T) {
	t.Parallel()
	own := time.Now().Add(time.Hour)
	s := app.New(app.WithReplyTimeout(time.Minute))
	require.NoError(t, s.Get("/armed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "a")
		_, _ = io.WriteString(w, "b") // armed once, at the first write
	})))
	require.NoError(t, s.Get("/own", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetWriteDeadline(own); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "ab")
	})))
	require.NoError(t, s.Ready())
	for _, path := range []string{"/armed", "/own"} {
		w := &writeDeadlines{ResponseRecorder: httptest.NewRecorder()}
		before := time.Now()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, "ab", w.Body.String(), path)
		require.Len(t, w.set, 1, path)
		if path == "/own" {
			assert.Equal(t, own, w.set[0], "the handler's own deadline is not replaced")
		} else {
			assert.False(t, w.set[0].Before(before.Add(time.Minute)), "the reply time-out from the first write: %v", w.set[0])
		}
	}
}
