package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/internal/redistest"
	"github.com/burrow-go/burrow/plugins/websocket/wstest"
)

// liveWait bounds the wait for a message that must come: only a hang
// fails on it.
const liveWait = 30 * time.Second

// liveURL is the WebSocket URL of s's GET /todos/live.
func liveURL(s *service) string { return "ws" + strings.TrimPrefix(s.base, "http") + "/todos/live" }

// next reads the next message of c, a live message.
func next(t *testing.T, c *websocket.Conn) change {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	typ, b, err := c.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, websocket.MessageText, typ)
	var ch change
	require.NoError(t, json.Unmarshal(b, &ch), "%s", b)
	return ch
}

// closedWith reads c until the server closes it, and returns the code.
func closedWith(t *testing.T, c *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			require.True(t, errors.As(err, &ce), "closed without a close frame: %v", err)
			return ce.Code
		}
	}
}

func write(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	require.NoError(t, c.Write(ctx, websocket.MessageText, []byte(msg)))
}

// TestLiveWebSocket: GET /todos/live sends a user every change to their
// todos — from any route — and nothing of another user's; answers a
// ping; refuses a handshake without credentials (401) before the
// upgrade.
func TestLiveWebSocket(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	c, res := wstest.HandshakeURL(t, liveURL(s))
	require.Nil(t, c, "upgraded without credentials")
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Empty(t, res.Header.Get("Upgrade"))

	a := wstest.DialURL(t, liveURL(s), "Authorization", alice)
	b := wstest.DialURL(t, liveURL(s), "Authorization", bob)

	write(t, a, `{"type":"ping"}`)
	assert.Equal(t, change{Type: "pong"}, next(t, a))

	res1 := s.do(t, "POST", "/todos", alice, jsonType, `{"title":"Milk"}`)
	require.Equal(t, http.StatusCreated, res1.status, res1.body)
	assert.Equal(t, change{Type: "created", Todo: &todo{ID: 1, Title: "Milk"}}, next(t, a))
	require.Equal(t, http.StatusOK, s.do(t, "PATCH", "/todos/1", alice, jsonType, `{"done":true}`).status)
	assert.Equal(t, change{Type: "updated", Todo: &todo{ID: 1, Title: "Milk", Done: true}}, next(t, a))
	require.Equal(t, http.StatusNoContent, s.do(t, "DELETE", "/todos/1", alice, "", "").status)
	assert.Equal(t, change{Type: "deleted", Todo: &todo{ID: 1, Title: "Milk", Done: true}}, next(t, a))
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos/batch", alice, jsonType, `[{"title":"A"},{"title":"B"}]`).status)
	assert.Equal(t, "A", next(t, a).Todo.Title)
	assert.Equal(t, "B", next(t, a).Todo.Title)

	// Refused changes are not sent: a batch rolled back, a missing todo.
	require.Equal(t, http.StatusConflict, s.do(t, "POST", "/todos/batch", alice, jsonType, `[{"title":"C"},{"title":"A"}]`).status)
	require.Equal(t, http.StatusNotFound, s.do(t, "DELETE", "/todos/99", alice, "", "").status)
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"D"}`).status)
	assert.Equal(t, change{Type: "created", Todo: &todo{ID: 4, Title: "D"}}, next(t, a), "the rolled-back batch sent nothing")

	// Bob's first message is his own change: none of alice's came.
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", bob, jsonType, `{"title":"Bob's"}`).status)
	assert.Equal(t, change{Type: "created", Todo: &todo{ID: 5, Title: "Bob's"}}, next(t, b))
	write(t, a, `{"type":"ping"}`)
	assert.Equal(t, change{Type: "pong"}, next(t, a), "nothing of bob's came to alice")
}

// TestLiveWebSocketOrigin: a handshake with the session cookie from
// another site's page is refused 403, unless -cors-origins names it; one
// with a bearer token is admitted from any origin.
func TestLiveWebSocketOrigin(t *testing.T) {
	t.Parallel()
	s := startUsers(t, "-cors-origins", "https://app.example")
	cookie := logIn(t, s, "alice", "tokenA")
	for _, tc := range []struct {
		name   string
		header []string
		status int // 0: upgraded
	}{
		{"cookie, own origin", []string{"Cookie", cookie, "Origin", s.base}, 0},
		{"cookie, no origin", []string{"Cookie", cookie}, 0},
		{"cookie, a -cors-origins origin", []string{"Cookie", cookie, "Origin", "https://app.example"}, 0},
		{"cookie, another site", []string{"Cookie", cookie, "Origin", "https://evil.example"}, http.StatusForbidden},
		{"cookie, a sandboxed page", []string{"Cookie", cookie, "Origin", "null"}, http.StatusForbidden},
		{"bearer, another site", []string{"Authorization", alice, "Origin", "https://evil.example"}, 0},
		{"wrong bearer, another site", []string{"Authorization", "Bearer nope", "Origin", "https://evil.example"}, http.StatusUnauthorized},
		{"ended session", []string{"Cookie", sessionCookie + "=nope", "Origin", s.base}, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, res := wstest.HandshakeURL(t, liveURL(s), tc.header...)
			if tc.status != 0 {
				require.Nil(t, c, "upgraded")
				assert.Equal(t, tc.status, res.StatusCode)
				return
			}
			require.NotNil(t, c, "refused: %+v", res)
			write(t, c, `{"type":"ping"}`)
			assert.Equal(t, change{Type: "pong"}, next(t, c))
		})
	}
}

// TestLiveWebSocketBadMessages: a message over 4 KiB closes the
// connection with 1009; one that is not a JSON object of a known type
// with 1007.
func TestLiveWebSocketBadMessages(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	for _, tc := range []struct {
		name string
		msg  string
		code websocket.StatusCode
	}{
		{"too big", `{"type":"ping","pad":"` + strings.Repeat("x", 4<<10) + `"}`, websocket.StatusMessageTooBig},
		{"unknown type", `{"type":"subscribe"}`, websocket.StatusInvalidFramePayloadData},
		{"no type", `{}`, websocket.StatusInvalidFramePayloadData},
		{"not an object", `["ping"]`, websocket.StatusInvalidFramePayloadData},
		{"not JSON", `ping`, websocket.StatusInvalidFramePayloadData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := wstest.DialURL(t, liveURL(s), "Authorization", alice)
			write(t, c, tc.msg)
			assert.Equal(t, tc.code, closedWith(t, c))
		})
	}
}

// sse is an open event stream.
type sse struct {
	r    *bufio.Reader
	body interface{ Close() error }
}

// openEvents opens GET /todos/events with header (name, value pairs).
func openEvents(t *testing.T, s *service, header ...string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+"/todos/events", nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); res.Body.Close() })
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	return &sse{r: bufio.NewReader(res.Body), body: res.Body}
}

// next reads the next event: its name and data.
func (e *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var name, data string
	got := make(chan error, 1)
	go func() {
		for {
			line, err := e.r.ReadString('\n')
			if err != nil {
				got <- err
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && data != "":
				got <- nil
				return
			}
		}
	}()
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(liveWait):
		require.FailNow(t, "no event")
	}
	return name, data
}

// TestLiveEvents: GET /todos/events sends the same messages as the
// WebSocket, as events named after their type, to their user only,
// with the same authentication.
func TestLiveEvents(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	assert.Equal(t, http.StatusUnauthorized, s.do(t, "GET", "/todos/events", "", "", "").status)
	a := openEvents(t, s, "Authorization", alice)
	b := openEvents(t, s, "Cookie", logIn(t, s, "bob", "tokenB"))

	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"Milk"}`).status)
	name, data := a.next(t)
	assert.Equal(t, "created", name)
	assert.JSONEq(t, `{"type":"created","todo":{"id":1,"title":"Milk","done":false}}`, data)
	require.Equal(t, http.StatusNoContent, s.do(t, "DELETE", "/todos/1", alice, "", "").status)
	name, data = a.next(t)
	assert.Equal(t, "deleted", name)
	assert.JSONEq(t, `{"type":"deleted","todo":{"id":1,"title":"Milk","done":false}}`, data)

	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", bob, jsonType, `{"title":"Eggs"}`).status)
	name, data = b.next(t)
	assert.Equal(t, "created", name)
	assert.JSONEq(t, `{"type":"created","todo":{"id":2,"title":"Eggs","done":false}}`, data, "bob's first event is his own")
}

// TestLiveAcrossInstances: with -redis, or with two instances on one
// PostgreSQL database, a change made through one instance reaches the
// WebSocket clients of the other. The other's bus listens once it is
// ready, which the test cannot see: changes are made until one arrives.
func TestLiveAcrossInstances(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"redis", func(t *testing.T) []string {
			args := []string{"-redis", redistest.Start(t).URL(3)}
			if pg != nil {
				args = append(args, "-db", pg.CreateDB(t, fmt.Sprintf("todo%d", databases.Add(1))))
			}
			return args
		}},
		{"postgres", func(t *testing.T) []string { return []string{"-db", pgtest.Start(t).URL("test")} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-users", users}, tc.args(t)...)
			a := start(t, env(), zap.NewNop(), args...)
			b := start(t, env(), zap.NewNop(), args...)
			assertReaches(t, a, b)
			assertReaches(t, b, a)
		})
	}
}

// assertReaches asserts that alice's changes made through from reach
// her WebSocket client on to.
func assertReaches(t *testing.T, from, to *service) {
	t.Helper()
	c := wstest.DialURL(t, liveURL(to), "Authorization", alice)
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	got := make(chan change, 1)
	go func() {
		defer close(got)
		_, msg, err := c.Read(ctx)
		var ch change
		if err == nil && json.Unmarshal(msg, &ch) == nil {
			got <- ch
		}
	}()
	for i := 0; ; i++ {
		res := from.do(t, "POST", "/todos", alice, jsonType, fmt.Sprintf(`{"title":"Milk %d %s"}`, i, from.base))
		require.Equal(t, http.StatusCreated, res.status, res.body)
		select {
		case ch, ok := <-got:
			require.True(t, ok, "no message before the time-out")
			assert.Equal(t, "created", ch.Type)
			require.NotNil(t, ch.Todo)
			assert.Contains(t, ch.Todo.Title, "Milk ")
			return
		case <-time.After(100 * time.Millisecond): // then another change
		}
	}
}

// TestLiveGoingAway: on SIGTERM every WebSocket client gets a close
// frame with 1001, and the process exits.
func TestLiveGoingAway(t *testing.T) {
	t.Parallel()
	bin := buildTodo(t)
	p := startProcess(t, bin, os.Environ(), "-users", users, "-drain", "500ms")
	url := "ws" + strings.TrimPrefix(p.base, "http") + "/todos/live"
	clients := []*websocket.Conn{
		wstest.DialURL(t, url, "Authorization", alice),
		wstest.DialURL(t, url, "Authorization", bob),
	}
	for _, c := range clients {
		write(t, c, `{"type":"ping"}`)
		require.Equal(t, change{Type: "pong"}, next(t, c))
	}
	codes := make(chan websocket.StatusCode, len(clients))
	for _, c := range clients {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), liveWait)
			defer cancel()
			_, _, err := c.Read(ctx)
			codes <- websocket.CloseStatus(err)
		}()
	}
	p.stop(t)
	for range clients {
		assert.Equal(t, websocket.StatusGoingAway, <-codes)
	}
}
