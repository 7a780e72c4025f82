package app_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// The connections Listen and Serve accept move their deadlines later
// lazily: a request on a kept-alive connection finds the deadline an
// earlier one armed, which fires before its own. These tests hold the
// bounds on such a connection: the earlier deadline cuts nothing, the
// request's own still cuts a slow client, and a handler's own wins.

// waitPast waits until t has passed.
func waitPast(t time.Time) {
	for time.Now().Before(t) {
		time.Sleep(time.Until(t) + time.Millisecond)
	}
}

func TestSlowBodyOnAKeptAliveConnectionIsCut(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	s := app.New(app.WithBodyTimeout(timeout))
	require.NoError(t, s.Post("/in", func(b app.Body[string]) (string, error) { return b.Value, nil }))
	c := dial(t, serve(t, s))
	br := bufio.NewReader(c)
	for range 2 {
		_, err := io.WriteString(c, "POST /in HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")
		require.NoError(t, err)
		res, b := readAnswer(t, br)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "hi", b)
	}
	start := time.Now()
	_, err := io.WriteString(c, "POST /in HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten.")
	require.NoError(t, err)
	res, _ := readAnswer(t, br)
	assert.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	assert.True(t, res.Close, "connection: close")
	assert.GreaterOrEqual(t, time.Since(start), timeout, "cut at the body time-out, not before")
}

// A reply to a client that stopped reading is cut at its own reply
// time-out, counted from its own write: not at the one an earlier reply
// on the connection armed, which fires first, nor never.
func TestSlowReaderOnAKeptAliveConnectionIsCut(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	big := bytes.Repeat([]byte("x"), 32<<20) // far more than both sockets' buffers hold
	sent := make(chan time.Duration, 1)
	s := app.New(app.WithReplyTimeout(timeout))
	require.NoError(t, s.Get("/small", func() (string, error) { return "ok", nil }))
	require.NoError(t, s.Get("/big", func(rep *httpx.Reply) error {
		start := time.Now()
		err := rep.Send(big)
		sent <- time.Since(start)
		return err
	}))
	c := dial(t, serve(t, s))
	br := bufio.NewReader(c)
	_, err := io.WriteString(c, "GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	first := time.Now() // the first reply's deadline is after first + timeout
	_, b := readAnswer(t, br)
	require.Equal(t, "ok", b)
	waitPast(first.Add(timeout / 2))
	_, err = io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	select {
	case took := <-sent:
		assert.GreaterOrEqual(t, took, timeout, "the reply was cut before its own time-out")
	case <-time.After(5 * time.Second):
		t.Fatal("the reply to a client that reads nothing was never cut")
	}
}

// A handler that extends its read deadline (http.ResponseController) gets
// the body it waits for past the body time-out, on a kept-alive
// connection as on a new one.
func TestAHandlersOwnReadDeadlineWins(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	started := make(chan time.Time, 1)
	s := app.New(app.WithBodyTimeout(timeout))
	require.NoError(t, s.Mount("/upload", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		started <- time.Now()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestTimeout)
			return
		}
		_, _ = w.Write(b)
	})))
	c := dial(t, serve(t, s))
	br := bufio.NewReader(c)
	for _, part := range []string{"abc", "def"} {
		_, err := io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n"+part)
		require.NoError(t, err)
		waitPast((<-started).Add(2 * timeout)) // past the body time-out
		_, err = io.WriteString(c, strings.ToUpper(part))
		require.NoError(t, err)
		res, b := readAnswer(t, br)
		assert.Equal(t, http.StatusOK, res.StatusCode, b)
		assert.Equal(t, part+strings.ToUpper(part), b)
	}
}

// HTTP/2 streams share their connection, whose deadlines net/http's
// HTTP/2 server keeps; a body's time-out is the stream's own. A slow body
// is cut while the streams beside it, on the same connection, are served.
func TestSlowBodyOnAnHTTP2ConnectionIsCut(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	tc := newTestCert(t)
	certFile, keyFile := tc.files(t)
	s := app.New(app.WithBodyTimeout(timeout))
	require.NoError(t, s.Post("/in", func(b app.Body[string]) (string, error) { return b.Value, nil }))
	addr, _ := listenTLS(t, s, certFile, keyFile)
	client := tc.client(t, true)
	post := func(body io.Reader) (*http.Response, string) {
		t.Helper()
		res, err := client.Post("https://"+addr+"/in", "text/plain", body)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for range 2 {
		res, b := post(strings.NewReader("hi"))
		require.Equal(t, 2, res.ProtoMajor)
		require.Equal(t, http.StatusOK, res.StatusCode, b)
	}
	slow, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = io.WriteString(w, "only ten.") }() // and no more
	done := make(chan *http.Response, 1)
	go func() {
		res, _ := post(slow)
		done <- res
	}()
	res, b := post(strings.NewReader("beside"))
	assert.Equal(t, http.StatusOK, res.StatusCode, "a stream beside the slow one")
	assert.Equal(t, "beside", b)
	select {
	case res := <-done:
		assert.Equal(t, 2, res.ProtoMajor)
		assert.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	case <-time.After(5 * time.Second):
		t.Fatal("the slow body was never cut")
	}
	res, b = post(strings.NewReader("after"))
	assert.Equal(t, http.StatusOK, res.StatusCode, "the connection serves on")
	assert.Equal(t, "after", b)
}

// A hijacked connection is a net.Conn; a handler that needs the TCP
// connection itself gets it from NetConn, as from a *tls.Conn.
func TestAHijackedConnectionGivesItsTCPConnection(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Get("/tcp", func(rep *httpx.Reply) {
		conn, _, err := http.NewResponseController(rep.Raw()).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		var under net.Conn
		if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
			under = nc.NetConn()
		}
		answer := fmt.Sprintf("%T", under)
		_, _ = fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(answer), answer)
	}))
	c := dial(t, serve(t, s))
	_, err := io.WriteString(c, "GET /tcp HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	res, b := readAnswer(t, bufio.NewReader(c))
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "*net.TCPConn", b)
}
