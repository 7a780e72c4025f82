package apptest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

func TestMain(m *testing.M) { apptest.Main(m) }

type echoed struct {
	Method string `json:"method"`
	Header string `json:"header"`
	Body   string `json:"body"`
}

func echoServer(t *testing.T) *app.Server {
	s := apptest.New(t)
	echo := func(req *httpx.Request, b app.Body[string]) (echoed, error) {
		return echoed{req.Method(), req.Header("X-Test"), b.Value}, nil
	}
	require.NoError(t, s.Get("/echo", echo))
	require.NoError(t, s.Post("/echo", echo))
	return s
}

func TestDoSendsTheRequestAndReadsTheAnswer(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	tests := []struct {
		name string
		res  *apptest.Response
		want echoed
	}{
		{"Do", apptest.Do(t, s, "POST", "/echo", strings.NewReader("hello"), "Content-Type", "text/plain", "X-Test", "yes"),
			echoed{"POST", "yes", "hello"}},
		{"Get", apptest.Get(t, s, "/echo", "X-Test", "no"), echoed{"GET", "no", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, 200, tt.res.StatusCode)
			assert.Equal(t, "application/json; charset=utf-8", tt.res.Header.Get("Content-Type"))
			var got echoed
			tt.res.JSON(t, &got)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Serve puts the server on a real socket; Fetch answers as the client
// got it: no redirect followed, no Accept-Encoding added, nothing
// decoded.
func TestServeAndFetch(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	require.NoError(t, s.Get("/moved", func(rep *httpx.Reply) error {
		return rep.Code(302).SetHeader("Location", "/echo").Send(nil)
	}))
	require.NoError(t, s.Get("/ae", func(req *httpx.Request) (string, error) { return req.Header("Accept-Encoding"), nil }))
	url := apptest.Serve(t, s)
	res := apptest.Fetch(t, "GET", url+"/echo", "X-Test", "yes")
	assert.Equal(t, 200, res.StatusCode)
	var got echoed
	res.JSON(t, &got)
	assert.Equal(t, echoed{"GET", "yes", ""}, got)
	res = apptest.Fetch(t, "GET", url+"/moved")
	assert.Equal(t, 302, res.StatusCode)
	assert.Equal(t, "/echo", res.Header.Get("Location"))
	assert.Empty(t, apptest.Fetch(t, "GET", url+"/ae").Body)
	assert.Equal(t, "gzip", apptest.Fetch(t, "GET", url+"/ae", "Accept-Encoding", "gzip").Body)
}

func TestNewClosesTheServerWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	closed := false
	t.Run("uses a server", func(t *testing.T) {
		s := apptest.New(t)
		require.NoError(t, s.OnClose(func(context.Context) error { closed = true; return nil }))
		require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }))
		assert.Equal(t, "ok", apptest.Get(t, s, "/").Body)
		assert.False(t, closed)
	})
	assert.True(t, closed)
}

func TestReadEventReadsOneEventAtATime(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	next := make(chan struct{})
	require.NoError(t, s.Get("/events", func(rep *httpx.Reply) error {
		es, err := rep.SSE()
		if err != nil {
			return err
		}
		if err := es.Send(httpx.Event{Event: "tick", Data: "1"}); err != nil {
			return err
		}
		<-next // the first event is read while the handler waits
		return es.Send(httpx.Event{ID: "2", Data: "two\nlines"})
	}))
	res, err := s.Inject(httptest.NewRequest("GET", "/events", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	assert.Equal(t, "event: tick\ndata: 1\n", apptest.ReadEvent(t, body))
	close(next)
	assert.Equal(t, "id: 2\ndata: two\ndata: lines\n", apptest.ReadEvent(t, body))
	assert.Contains(t, fatal(t, func(tb testing.TB) { apptest.ReadEvent(tb, body) }),
		`apptest: reading an event after "": EOF`, "the stream ended before another event")
}

// A comment block (": ping", a heartbeat) is returned like an event, so
// a test reads a stream's heartbeats one by one as it reads its events.
func TestReadEventReturnsACommentBlockLikeAnEvent(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Get("/events", func(rep *httpx.Reply) error {
		es, err := rep.SSE()
		if err != nil {
			return err
		}
		if err := es.Comment("ping"); err != nil {
			return err
		}
		return es.Send(httpx.Event{Data: "after"})
	}))
	res, err := s.Inject(httptest.NewRequest("GET", "/events", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	assert.Equal(t, ": ping\n", apptest.ReadEvent(t, body))
	assert.Equal(t, "data: after\n", apptest.ReadEvent(t, body))
}

// A stream cut in the middle of a line fails the test with that line:
// what was cut is what the test needs to see.
func TestReadEventShowsTheLineAStreamWasCutIn(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Get("/cut", func(rep *httpx.Reply) {
		w := rep.Raw()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("event: tick\ndata: cu"))
		http.NewResponseController(w).Flush()
	}))
	res, err := s.Inject(httptest.NewRequest("GET", "/cut", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	assert.Equal(t, `apptest: reading an event after "event: tick\n": the stream ended in the line "data: cu": EOF`,
		fatal(t, func(tb testing.TB) { apptest.ReadEvent(tb, body) }))
}

// fatalTB records the first Fatalf and stops its goroutine, as testing's
// own does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Helper() {}

// fatal runs fn with a fatalTB and returns what it failed with.
func fatal(t *testing.T, fn func(tb testing.TB)) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(tb)
	}()
	<-done
	return tb.msg
}

func TestHelpersFailTheTestOnWhatTheyCannotDo(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	broken := apptest.New(t)
	require.NoError(t, broken.Get("/", func(int) {}))
	tests := []struct {
		name string
		fn   func(tb testing.TB)
		msg  string
	}{
		{"a header without a value", func(tb testing.TB) { apptest.Get(tb, s, "/echo", "X-Test") },
			`apptest: headers come in name, value pairs; "X-Test" has no value`},
		{"a server that fails Ready", func(tb testing.TB) { apptest.Get(tb, broken, "/") },
			"apptest: GET /: route GET / (root) needs service int"},
		{"a body that does not fit", func(tb testing.TB) {
			var n int
			apptest.Get(tb, s, "/echo").JSON(tb, &n)
		}, `apptest: decoding the 200 answer "{\"method\":\"GET\",\"header\":\"\",\"body\":\"\"}" into *int: json: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, fatal(t, tt.fn), tt.msg)
		})
	}
}

// newShop is an application's own constructor, as a test of the shipped
// server calls it: its options are the production ones.
func newShop(opts ...app.Option) *app.Server {
	s := app.New(append([]app.Option{app.WithRootName("shop")}, opts...)...)
	_ = app.Get(s, "/name", func(context.Context, struct{}) (string, error) { return s.Name(), nil })
	return s
}

// TestOwnClosesAServerMadeElsewhere: Own returns the server the
// application's constructor made, answers with it, and closes it when
// the test that owns it ends.
func TestOwnClosesAServerMadeElsewhere(t *testing.T) {
	t.Parallel()
	var s *app.Server
	t.Run("owner", func(t *testing.T) {
		made := newShop()
		s = apptest.Own(t, made)
		require.Same(t, made, s)
		res := apptest.Get(t, s, "/name")
		assert.Equal(t, 200, res.StatusCode)
		assert.Equal(t, "shop", res.Body)
	})
	_, err := s.Inject(httptest.NewRequest("GET", "/name", nil))
	assert.ErrorIs(t, err, app.ErrClosed, "closed when its owner ended")
}

// TestMultipartUploads: a Multipart body is what a browser sends: the
// values, the files with their names and types, an empty file input as
// no file; and it can be sent twice.
func TestMultipartUploads(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	type upload struct {
		app.In
		Title  string      `form:"title" validate:"required"`
		Tags   []string    `form:"tag"`
		Photos []*app.File `form:"photo"`
		Note   *app.File   `form:"note"`
	}
	require.NoError(t, app.Post(s, "/upload", func(_ context.Context, in upload) (string, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %v", in.Title, in.Tags)
		for _, f := range in.Photos {
			r, err := f.Open()
			if err != nil {
				return "", err
			}
			body, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, " [%s %s %q]", f.Filename, f.ContentType, body)
		}
		fmt.Fprintf(&b, " note:%v", in.Note != nil)
		return b.String(), nil
	}))
	var m apptest.Multipart
	m.Field("title", `a "quoted" title`).Field("tag", "a").Field("tag", "b").
		File("photo", "cat.png", "image/png", []byte("\x89PNG")).
		File("photo", `dir/"x".bin`, "", []byte("raw")).
		File("note", "", "", nil) // a file input left empty
	require.True(t, strings.HasPrefix(m.ContentType(), "multipart/form-data; boundary="), m.ContentType())
	want := `a "quoted" title [a b] [cat.png image/png "\x89PNG"] ["x".bin application/octet-stream "raw"] note:false`
	for range 2 {
		res := apptest.Do(t, s, "POST", "/upload", m.Body(), "Content-Type", m.ContentType())
		assert.Equal(t, 200, res.StatusCode, res.Body)
		assert.Equal(t, want, res.Body)
	}
	var empty apptest.Multipart
	res := apptest.Do(t, s, "POST", "/upload", empty.Body(), "Content-Type", empty.ContentType())
	assert.Equal(t, 400, res.StatusCode)
	assert.Contains(t, res.Body, `"path":"body/title"`)
}

// cookieServer logs in with a Secure, HttpOnly session cookie (as a
// production server sets it), answers who is logged in, and logs out by
// clearing the cookie; /api/pref sets a cookie for /api alone.
func cookieServer(t *testing.T) *app.Server {
	s := apptest.New(t)
	require.NoError(t, s.Post("/login", func(rep *httpx.Reply) error {
		http.SetCookie(rep.Raw(), &http.Cookie{Name: "sid", Value: "ann", Path: "/", Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
		return rep.Code(http.StatusNoContent).Send(nil)
	}))
	require.NoError(t, s.Post("/logout", func(rep *httpx.Reply) error {
		http.SetCookie(rep.Raw(), &http.Cookie{Name: "sid", Path: "/", MaxAge: -1, Secure: true})
		return rep.Code(http.StatusNoContent).Send(nil)
	}))
	require.NoError(t, s.Post("/api/pref", func(rep *httpx.Reply) error {
		http.SetCookie(rep.Raw(), &http.Cookie{Name: "pref", Value: "dark", Path: "/api"})
		return rep.Code(http.StatusNoContent).Send(nil)
	}))
	who := func(req *httpx.Request, rep *httpx.Reply) error {
		var names []string
		for _, c := range req.Raw().Cookies() {
			names = append(names, c.Name+"="+c.Value)
		}
		if len(names) == 0 {
			return rep.Code(http.StatusUnauthorized).Send("nobody")
		}
		return rep.Send(strings.Join(names, " "))
	}
	require.NoError(t, s.Get("/me", who))
	require.NoError(t, s.Get("/api/me", who))
	return s
}

// TestClientKeepsCookies: a Client sends the cookies earlier answers set
// — Secure ones too, scoped by path, forgotten when cleared — in process
// and over a socket alike.
func TestClientKeepsCookies(t *testing.T) {
	t.Parallel()
	bothWays(t, cookieServer, func(t *testing.T, s *app.Server, c *apptest.Client) {
		assert.Equal(t, "nobody", c.Get(t, "/me").Body)
		assert.Equal(t, 204, c.Do(t, "POST", "/login", nil).StatusCode)
		assert.Equal(t, "sid=ann", c.Get(t, "/me").Body)
		assert.Equal(t, 204, c.Do(t, "POST", "/api/pref", nil).StatusCode)
		assert.Equal(t, "sid=ann", c.Get(t, "/me").Body, "pref is /api's")
		assert.Equal(t, "pref=dark sid=ann", c.Get(t, "/api/me").Body, "the longer path first")
		assert.Equal(t, "x=1 pref=dark sid=ann", c.Get(t, "/api/me", "Cookie", "x=1").Body, "a Cookie header given is sent too")
		var names []string
		for _, ck := range c.Cookies("/api/me") {
			names = append(names, ck.Name)
		}
		assert.Equal(t, []string{"pref", "sid"}, names)
		assert.Equal(t, 204, c.Do(t, "POST", "/logout", nil).StatusCode)
		assert.Equal(t, "nobody", c.Get(t, "/me").Body, "a cleared cookie is forgotten")
		other := &apptest.Client{Server: s}
		assert.Equal(t, "nobody", other.Get(t, "/me").Body, "each client has its own cookies")
	})
}

// bothWays runs test with a new server of server's and a Client of it,
// once in process and once over a socket.
func bothWays(t *testing.T, server func(t *testing.T) *app.Server, test func(t *testing.T, s *app.Server, c *apptest.Client)) {
	t.Helper()
	for _, mode := range []string{"in process", "socket"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := server(t)
			c := &apptest.Client{Server: s}
			if mode == "socket" {
				c = &apptest.Client{URL: apptest.Serve(t, s)}
			}
			test(t, s, c)
		})
	}
}

// TestClientRefusesWhatItCannotSend: a Client with no server, a target
// that is not a path and headers not in pairs fail the test.
func TestClientRefusesWhatItCannotSend(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	tests := []struct {
		name string
		do   func(tb testing.TB)
		want string
	}{
		{"no server", func(tb testing.TB) { (&apptest.Client{}).Get(tb, "/") }, "apptest: the Client has neither a Server nor a URL"},
		{"not a path", func(tb testing.TB) { (&apptest.Client{Server: s}).Get(tb, "http://x/") }, `apptest: a Client's target is a path, not "http://x/"`},
		{"odd headers", func(tb testing.TB) { (&apptest.Client{Server: s}).Get(tb, "/", "X-A") }, `apptest: headers come in name, value pairs; "X-A" has no value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, fatal(t, tt.do))
		})
	}
}

type account struct{ User string }

// sessionServer is an application's constructor with the session
// plugin's production defaults: a Secure, HttpOnly cookie.
func sessionServer() *app.Server {
	s := app.New()
	s.Register(session.Plugin[account](session.NewMemoryStore()))
	_ = app.Post(s, "/session", func(_ context.Context, in struct {
		app.In
		User    string `form:"user" validate:"required"`
		Session *session.Session[account]
	}) (app.Redirect, error) {
		in.Session.Set(account{User: in.User})
		return app.Redirect{Location: "/me"}, nil
	})
	_ = app.Get(s, "/me", func(_ context.Context, in struct {
		app.In
		Session *session.Session[account]
	}) (string, error) {
		a, ok := in.Session.Get()
		if !ok {
			return "", httpx.NewError(http.StatusUnauthorized, "NO_SESSION", "log in first")
		}
		return a.User, nil
	})
	return s
}

// TestClientLogsInWithProductionSessions: the server an application
// ships, with its Secure session cookie, logs a Client in and knows it on
// the page the redirect names — in process and over a socket — as
// docs/testing.md shows.
func TestClientLogsInWithProductionSessions(t *testing.T) {
	t.Parallel()
	own := func(t *testing.T) *app.Server { return apptest.Own(t, sessionServer()) }
	bothWays(t, own, func(t *testing.T, _ *app.Server, c *apptest.Client) {
		assert.Equal(t, http.StatusUnauthorized, c.Get(t, "/me").StatusCode)
		res := c.Do(t, "POST", "/session", strings.NewReader("user=ann"), "Content-Type", "application/x-www-form-urlencoded")
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
		assert.Contains(t, res.Header.Get("Set-Cookie"), "; Secure")
		me := c.Get(t, res.Header.Get("Location"))
		assert.Equal(t, 200, me.StatusCode)
		assert.Equal(t, "ann", me.Body)
	})
}
