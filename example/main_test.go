package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

const jsonType = "application/json; charset=utf-8"

type exchange struct {
	method, path, auth string
	ctype, sent        string // request content type and body
	status             int
	body               string
	header             map[string]string // extra headers expected
}

// referenceTable is the reference example (docs/getting-started.md, "The reference example",
// with the default answers of docs/errors.md) as requests and
// exact answers; share selects the variant with the grandchild wrapped.
func referenceTable(share bool) []exchange {
	two := `{"answer":42,"foo":"foo"}`
	if share {
		two = `{"answer":42,"foo":"foo","bar":"bar"}`
	}
	return []exchange{
		{method: "GET", path: "/one", auth: "Bearer k1", status: 200, body: `{"answer":42}`},
		{method: "GET", path: "/one", auth: "Bearer k2", status: 200, body: `{"answer":42}`},
		{method: "GET", path: "/two", status: 200, body: two},
		{method: "GET", path: "/three", status: 200, body: `{"answer":42,"foo":"foo","bar":"bar"}`},
		{method: "GET", path: "/two", auth: "Bearer nope", status: 200, body: two},
		{method: "GET", path: "/three", auth: "garbage", status: 200, body: `{"answer":42,"foo":"foo","bar":"bar"}`},
		{method: "GET", path: "/one", status: 401, body: `{"error":"missing authorization header"}`,
			header: map[string]string{"Www-Authenticate": "Bearer"}},
		{method: "GET", path: "/one", auth: "Bearer wrong", status: 401, body: `{"error":"invalid authorization header"}`,
			header: map[string]string{"Www-Authenticate": `Bearer error="invalid_token"`}},
		{method: "GET", path: "/four", status: 404, body: `{"message":"Route GET:/four not found","error":"Not Found","statusCode":404}`},
		{method: "GET", path: "/four?x=1", status: 404, body: `{"message":"Route GET:/four?x=1 not found","error":"Not Found","statusCode":404}`},
		{method: "POST", path: "/two", status: 405, body: `{"statusCode":405,"error":"Method Not Allowed","message":"Route POST:/two not allowed"}`,
			header: map[string]string{"Allow": "GET, HEAD"}},
		// Routing decides 405 before any hook: no key needed to learn it.
		{method: "POST", path: "/one", status: 405, body: `{"statusCode":405,"error":"Method Not Allowed","message":"Route POST:/one not allowed"}`,
			header: map[string]string{"Allow": "GET, HEAD"}},
		{method: "OPTIONS", path: "/three", status: 405, body: `{"statusCode":405,"error":"Method Not Allowed","message":"Route OPTIONS:/three not allowed"}`,
			header: map[string]string{"Allow": "GET, HEAD"}},
		{method: "HEAD", path: "/two", status: 200, body: "",
			header: map[string]string{"Content-Length": strconv.Itoa(len(two))}},
		{method: "HEAD", path: "/one", status: 401, body: "",
			header: map[string]string{"Content-Length": "40"}},
		// POST /echo: a validated JSON body, in publicContext.
		{method: "POST", path: "/echo", ctype: "application/json", sent: `{"message":"hi","tags":["a","b"]}`,
			status: 200, body: `{"message":"hi","tags":["a","b"]}`},
		{method: "POST", path: "/echo", ctype: "application/json", sent: `{"tags":["1","2","3","4","5","6"]}`, status: 400,
			body: `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/message is required, body/tags must NOT have more than 5 items","validation":[{"path":"body/message","rule":"required","message":"is required"},{"path":"body/tags","rule":"max","message":"must NOT have more than 5 items"}]}`},
		{method: "POST", path: "/echo", ctype: "application/xml", sent: `<m/>`, status: 415,
			body: `{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/xml"}`},
		{method: "POST", path: "/echo", ctype: "application/json", sent: `{"message":`, status: 400,
			body: `{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"unexpected end of JSON input"}`},
		{method: "GET", path: "/readyz", status: 200, body: `{"status":"ready"}`},
		{method: "GET", path: "/readyz", auth: "Bearer k1", status: 200, body: `{"status":"ready"}`},
		{method: "GET", path: "/echo", status: 405, body: `{"statusCode":405,"error":"Method Not Allowed","message":"Route GET:/echo not allowed"}`,
			header: map[string]string{"Allow": "POST"}},
	}
}

func TestReferenceTableInject(t *testing.T) {
	for _, share := range []bool{false, true} {
		s := build([]string{"k1", "k2"}, share, time.Second)
		require.NoError(t, s.Ready())
		for _, ex := range referenceTable(share) {
			t.Run(name(share, ex), func(t *testing.T) {
				req := httptest.NewRequest(ex.method, ex.path, strings.NewReader(ex.sent))
				if ex.ctype != "" {
					req.Header.Set("Content-Type", ex.ctype)
				}
				if ex.auth != "" {
					req.Header.Set("Authorization", ex.auth)
				}
				res, err := s.Inject(req)
				require.NoError(t, err)
				check(t, ex, res)
			})
		}
	}
}

func TestReferenceTableOverSocket(t *testing.T) {
	for _, share := range []bool{false, true} {
		s := build([]string{"k1", "k2"}, share, time.Second)
		require.NoError(t, s.Ready())
		srv := httptest.NewServer(s)
		for _, ex := range referenceTable(share) {
			t.Run(name(share, ex), func(t *testing.T) {
				req, err := http.NewRequest(ex.method, srv.URL+ex.path, strings.NewReader(ex.sent))
				require.NoError(t, err)
				if ex.ctype != "" {
					req.Header.Set("Content-Type", ex.ctype)
				}
				if ex.auth != "" {
					req.Header.Set("Authorization", ex.auth)
				}
				res, err := srv.Client().Do(req)
				require.NoError(t, err)
				check(t, ex, res)
			})
		}
		srv.Close()
	}
}

func name(share bool, ex exchange) string {
	n := ex.method + " " + ex.path
	if ex.auth != "" {
		n += " [" + ex.auth + "]"
	}
	if share {
		n = "share/" + n
	}
	return n
}

func check(t *testing.T, ex exchange, res *http.Response) {
	t.Helper()
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, ex.status, res.StatusCode)
	assert.Equal(t, ex.body, string(body))
	if ex.body != "" {
		assert.Equal(t, jsonType, res.Header.Get("Content-Type"))
		assert.Equal(t, strconv.Itoa(len(ex.body)), res.Header.Get("Content-Length"))
	}
	for k, v := range ex.header {
		assert.Equal(t, v, res.Header.Get(k), "header %s", k)
	}
}

// A handler in authenticatedContext that needs foo cannot start: foo is
// only provided in its sibling publicContext.
func TestHandlerNeedingSiblingDecoratorFailsReady(t *testing.T) {
	type needsFoo struct {
		app.In
		Foo string `name:"foo"`
	}
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Register(func(s *app.Server) error {
		return s.Get("/one", func(rep *httpx.Reply, v needsFoo) error { return rep.Send(v.Foo) })
	}, app.Name("authenticatedContext"))
	s.Register(func(s *app.Server) error {
		return s.DecorateRequest("foo", "foo")
	}, app.Name("publicContext"))

	err := s.Ready()
	require.Error(t, err)
	require.ErrorIs(t, err, scope.ErrNotVisible)
	var re *app.RouteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "GET", re.Method)
	assert.Equal(t, "/one", re.Path)
	assert.Equal(t, "root > authenticatedContext", re.Context)
	var nv *scope.NotVisibleError
	require.ErrorAs(t, err, &nv)
	assert.Equal(t, "foo", nv.Key.Name)
	require.Len(t, nv.ProvidedIn, 1)
	assert.Equal(t, "root > publicContext", nv.ProvidedIn[0].Context.Path())
	assert.Equal(t,
		`route GET /one (root > authenticatedContext) needs request decorator "foo", which is only provided in sibling context root > publicContext`,
		err.Error())

	// The failure sticks: the server never serves.
	require.ErrorIs(t, s.Ready(), scope.ErrNotVisible)
	_, err = s.Inject(httptest.NewRequest("GET", "/one", nil))
	require.Error(t, err)
}

func TestKeysFromFlagsAndEnv(t *testing.T) {
	assert.Equal(t, []string{"a", "b"}, splitKeys(" a, ,b,"))
	assert.Empty(t, splitKeys(""))
	k1, err := randomKey()
	require.NoError(t, err)
	k2, err := randomKey()
	require.NoError(t, err)
	assert.NotEqual(t, k1, k2)
	assert.GreaterOrEqual(t, len(k1), 32)
}

// TestPrintFlag checks -print against the reference example: the plugin tree, the
// routes with bearer-auth's hook on /one only, and what each context sees
// — in both variants.
func TestPrintFlag(t *testing.T) {
	common := `Plugins
root T
├── openapi (wrapped) T
├── authenticatedContext T
│   └── bearer-auth (wrapped) T
└── publicContext T
    └── grandchildContext%s T

Routes
/
├── docs (GET, HEAD) root
├── echo (POST) root > publicContext
├── events (GET, HEAD) root > publicContext
├── one (GET, HEAD) root > authenticatedContext
│     • guards: auth bearer
│     • onRequest: (*Verifier).authenticate
├── openapi-3.0.json (GET, HEAD) root
├── openapi-3.2.json (GET, HEAD) root
├── openapi.json (GET, HEAD) root
├── readyz (GET, HEAD) root
├── three (GET, HEAD) root > publicContext%s
└── two (GET, HEAD) root > publicContext

Visibility
root  [wrapped plugins: openapi]
  declares  request decorator "answer" int
  sees      request decorator "answer" int  from here
`
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"encapsulated", nil, fmt.Sprintf(common, "", " > grandchildContext") + `  hidden    request decorator "foo" string  in root > publicContext
            request decorator "bar" string  in root > publicContext > grandchildContext
root > authenticatedContext  [wrapped plugins: bearer-auth]
  declares  —
  sees      request decorator "answer" int  from root
  hidden    request decorator "foo" string  in root > publicContext
            request decorator "bar" string  in root > publicContext > grandchildContext
root > publicContext
  declares  request decorator "foo" string
  sees      request decorator "foo" string  from here
            request decorator "answer" int  from root
  hidden    request decorator "bar" string  in root > publicContext > grandchildContext
root > publicContext > grandchildContext
  declares  request decorator "bar" string
  sees      request decorator "bar" string  from here
            request decorator "foo" string  from root > publicContext
            request decorator "answer" int  from root
`},
		{"shared", []string{"-share"}, fmt.Sprintf(common, " (wrapped)", "") + `  hidden    request decorator "foo" string  in root > publicContext
            request decorator "bar" string  in root > publicContext (by wrapped plugin grandchildContext)
root > authenticatedContext  [wrapped plugins: bearer-auth]
  declares  —
  sees      request decorator "answer" int  from root
  hidden    request decorator "foo" string  in root > publicContext
            request decorator "bar" string  in root > publicContext (by wrapped plugin grandchildContext)
root > publicContext  [wrapped plugins: grandchildContext]
  declares  request decorator "foo" string
            request decorator "bar" string  by wrapped plugin grandchildContext
  sees      request decorator "foo" string  from here
            request decorator "bar" string  from here (by wrapped plugin grandchildContext)
            request decorator "answer" int  from root
`},
	}
	times := regexp.MustCompile(`\d+\.\d\d ms`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			require.NoError(t, run(append([]string{"-print", "-keys", "k1"}, tt.args...), &out))
			assert.Equal(t, tt.want, times.ReplaceAllString(out.String(), "T"))
		})
	}
}

// TestBadFlagsAreRefused: a value the server cannot run with stops run
// with an error that names it, before anything is built or served (with
// -tick 0, every GET /events would panic in time.NewTicker; PORT=http
// would listen on 8000 as if PORT were unset). -print makes run return
// at once when it accepts the flags. Not parallel: it sets PORT.
func TestBadFlagsAreRefused(t *testing.T) {
	tests := []struct {
		name string
		port string // the environment's PORT
		args []string
		err  string // empty: accepted
	}{
		{"tick 0", "", []string{"-tick", "0"}, "invalid -tick 0s: want a positive duration"},
		{"negative tick", "", []string{"-tick", "-1s"}, "invalid -tick -1s: want a positive duration"},
		{"negative drain", "", []string{"-drain", "-1ms"}, "invalid -drain -1ms: want zero or a positive duration"},
		{"no drain, a short tick", "", []string{"-drain", "0", "-tick", "1ms"}, ""},
		{"PORT not a number", "http", nil, `invalid port "http": want a number from 0 to 65535`},
		{"PORT too large", "70000", nil, `invalid port "70000": want a number from 0 to 65535`},
		{"PORT", "9000", nil, ""},
		{"-port not a number", "", []string{"-port", "http"}, `invalid port "http": want a number from 0 to 65535`},
		{"-port negative", "", []string{"-port", "-1"}, `invalid port "-1": want a number from 0 to 65535`},
		{"-port 0", "", []string{"-port", "0"}, ""},
		{"-port wins over a bad PORT", "http", []string{"-port", "9000"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PORT", tt.port)
			err := run(append(tt.args, "-print", "-keys", "k1"), io.Discard)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.err)
		})
	}
}

func TestDOTFlag(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run([]string{"-dot", "-keys", "k1"}, &out))
	dot := out.String()
	assert.True(t, strings.HasPrefix(dot, "digraph burrow {\n"))
	for _, edge := range []string{"c0 -> c1;", "c0 -> c2;", "c2 -> c3;", "c1 -> c1_w0"} {
		assert.Contains(t, dot, edge)
	}
	assert.Contains(t, dot, `c3 [label="grandchildContext\nrequest decorator \"bar\" string"];`)
}

// TestConcurrentLoad drives every route from many goroutines at once over
// a socket; under -race (as CI runs it) it is the race check of the whole
// stack: routing, hooks, decorators, bodies, pooled requests and replies.
func TestConcurrentLoad(t *testing.T) {
	s := build([]string{"k1"}, false, time.Second)
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	defer srv.Close()
	type call struct {
		method, path, auth, body string
		status                   int
	}
	calls := []call{
		{"GET", "/one", "Bearer k1", "", 200},
		{"GET", "/one", "Bearer no", "", 401},
		{"GET", "/two", "", "", 200},
		{"GET", "/three", "", "", 200},
		{"POST", "/echo", "", `{"message":"m"}`, 200},
		{"POST", "/echo", "", `{}`, 400},
		{"GET", "/nope", "", "", 404},
	}
	const workers, rounds = 8, 60
	errs := make(chan string, workers*rounds*len(calls))
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range rounds {
				c := calls[(w+i)%len(calls)]
				req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
				if c.auth != "" {
					req.Header.Set("Authorization", c.auth)
				}
				if c.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				res, err := srv.Client().Do(req)
				if err != nil {
					errs <- err.Error()
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != c.status {
					errs <- fmt.Sprintf("%s %s: %d, want %d", c.method, c.path, res.StatusCode, c.status)
				}
			}
		}()
	}
	for range workers {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// serve serves s on a port of its own on 127.0.0.1 and returns its base
// URL and the channel that receives Serve's answer once s is closed.
func serve(t *testing.T, s *app.Server) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	return "http://" + ln.Addr().String(), served
}

// TestReadyzDuringDrain is the rolling-restart contract: once Close
// begins, /readyz answers 503 while the API keeps answering, until the
// drain delay is over.
func TestReadyzDuringDrain(t *testing.T) {
	s := build([]string{"k1"}, false, time.Second, app.WithDrainDelay(300*time.Millisecond))
	require.NoError(t, s.Ready())
	url, served := serve(t, s)
	get := func(path string) (int, string) {
		res, err := http.Get(url + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	status, body := get("/readyz")
	require.Equal(t, 200, status)
	require.Equal(t, `{"status":"ready"}`, body)

	closed := make(chan error, 1)
	go func() { closed <- s.Close(context.Background()) }()
	require.Eventually(t, func() bool { return !s.IsReady() }, time.Second, time.Millisecond)
	status, body = get("/readyz")
	assert.Equal(t, 503, status)
	assert.Equal(t, `{"status":"draining"}`, body)
	status, _ = get("/two")
	assert.Equal(t, 200, status, "still serving during the drain delay")
	require.NoError(t, <-closed)
	require.NoError(t, <-served)
}

// TestAdminServesEveryProfile asks the -admin listener for each pprof
// endpoint (the index alone is not enough to take a CPU profile), and
// finds each request in the admin server's access log: they are Burrow
// routes, mounted in adminContext.
func TestAdminServesEveryProfile(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	addr, closeAdmin, err := serveAdmin("127.0.0.1:0", zap.New(core))
	require.NoError(t, err)
	t.Cleanup(closeAdmin)
	tests := []struct {
		path, ctype string
		status      int
	}{
		{"/debug/pprof/", "text/html; charset=utf-8", http.StatusOK},
		{"/debug/pprof/cmdline", "text/plain; charset=utf-8", http.StatusOK},
		{"/debug/pprof/symbol", "text/plain; charset=utf-8", http.StatusOK},
		{"/debug/pprof/profile?seconds=1", "application/octet-stream", http.StatusOK},
		{"/debug/pprof/trace?seconds=0.05", "application/octet-stream", http.StatusOK},
		{"/debug/pprof/heap", "application/octet-stream", http.StatusOK},
		{"/debug/pprof/goroutine?debug=1", "text/plain; charset=utf-8", http.StatusOK},
		{"/debug/pprof/nosuchprofile", "text/plain; charset=utf-8", http.StatusNotFound},
		{"/debug/pprof", "text/html; charset=utf-8", http.StatusMovedPermanently},
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Run("each", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.path, func(t *testing.T) {
				t.Parallel()
				res, err := client.Get("http://" + addr.String() + tt.path)
				require.NoError(t, err)
				defer res.Body.Close()
				b, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				assert.Equal(t, tt.status, res.StatusCode, string(b))
				assert.Equal(t, tt.ctype, res.Header.Get("Content-Type"))
				assert.NotEmpty(t, b)
			})
		}
	})
	for _, tt := range tests {
		lines := logs.FilterMessage("incoming request").FilterField(zap.String("url", tt.path)).All()
		if assert.Len(t, lines, 1, tt.path) {
			assert.Equal(t, "root > adminContext", lines[0].ContextMap()["context"], tt.path)
		}
	}
	assert.Len(t, logs.FilterMessage("request completed").All(), len(tests))
}

// TestNoHandlerIsCalledByReflection checks, in both variants, that every
// route of the reference example calls its handler directly: PrintRoutes
// marks a handler called through reflect.Value.Call "by reflection".
func TestNoHandlerIsCalledByReflection(t *testing.T) {
	t.Parallel()
	for _, share := range []bool{false, true} {
		s := build([]string{"k"}, share, time.Hour)
		require.NoError(t, s.Ready())
		routes := s.PrintRoutes(app.IncludeHooks())
		require.Contains(t, routes, "readyz", "the routes are printed")
		assert.NotContains(t, routes, "by reflection")
	}
}
