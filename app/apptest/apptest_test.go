package apptest_test

import (
	"bufio"
	"context"
	"fmt"
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
