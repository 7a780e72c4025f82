package websocket_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	ws "github.com/burrow-go/burrow/plugins/websocket"
	"github.com/burrow-go/burrow/plugins/websocket/wstest"
)

// TestAReaderThatStopsReadingIsCut: the peer reads nothing; the handler
// sends until its queue fills, and the connection is cut then, its
// queue dropped: Send held at most SendQueue messages and the one being
// written.
func TestAReaderThatStopsReadingIsCut(t *testing.T) {
	t.Parallel()
	s := app.New()
	const queue = 4
	big := strings.Repeat("x", 64<<10)
	type result struct {
		sent  int
		err   error
		cause error
	}
	done := make(chan result, 1)
	require.NoError(t, ws.Route(s, "/flood", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		n := 0
		for ; n < 1000; n++ {
			if err := c.Send(said{Text: big}); err != nil {
				<-ctx.Done()
				done <- result{sent: n, err: err, cause: context.Cause(ctx)}
				return nil
			}
		}
		done <- result{sent: n}
		return nil
	}, ws.SendQueue(queue)))
	c := wstest.Dial(t, s, "/flood") // over memory pipes: nothing is buffered below the queue
	_ = c
	r := <-done
	require.ErrorIs(t, r.err, ws.ErrSlowReader)
	assert.ErrorIs(t, r.cause, ws.ErrSlowReader)
	assert.LessOrEqual(t, r.sent, queue+1)
}

// TestADeadPeerIsDropped: a peer that answers no ping (it never reads,
// so its pongs are never written) is dropped by the keep-alive.
func TestADeadPeerIsDropped(t *testing.T) {
	t.Parallel()
	s := app.New()
	causes := make(chan error, 1)
	require.NoError(t, ws.Route(s, "/quiet", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	}, ws.KeepAlive(10*time.Millisecond, 20*time.Millisecond)))
	wstest.Dial(t, s, "/quiet")
	select {
	case err := <-causes:
		assert.ErrorIs(t, err, ws.ErrNoPong)
	case <-time.After(hangLimit):
		t.Fatal("the dead peer was not dropped")
	}
}

// TestALivePeerAnswersPings: a peer that reads answers every ping and
// stays connected through many of them.
func TestALivePeerAnswersPings(t *testing.T) {
	t.Parallel()
	s := app.New()
	pings := make(chan struct{}, 100)
	require.NoError(t, ws.Route(s, "/live", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		for {
			if _, err := c.Receive(ctx); err != nil {
				return nil
			}
			if err := c.Send(said{Text: "still here"}); err != nil {
				return err
			}
		}
	}, ws.KeepAlive(time.Millisecond, hangLimit)))
	c := wstest.Dial(t, s, "/live")
	_ = pings
	for range 20 { // each round trip spans pings, answered by the reader
		send(t, c, say{Text: "there?"})
		assert.Equal(t, "still here", receive[said](t, c).Text)
		time.Sleep(2 * time.Millisecond) // lets pings happen between messages; the outcome does not depend on it
	}
}

// TestCloseSendsGoingAwayToAThousandIdleConnections: Close tells every
// connection 1001, waits for their handlers, and leaves no goroutine.
func TestCloseSendsGoingAwayToAThousandIdleConnections(t *testing.T) {
	before := runtime.NumGoroutine()
	s := app.New()
	causes := make(chan error, 1000)
	require.NoError(t, ws.Route(s, "/idle", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	}))
	const n = 1000
	conns := make([]*websocket.Conn, n)
	for i := range conns {
		conns[i] = wstest.Dial(t, s, "/idle")
	}
	codes := make(chan websocket.StatusCode, n)
	var readers sync.WaitGroup
	for _, c := range conns {
		readers.Go(func() {
			_, _, err := c.Read(context.Background())
			codes <- websocket.CloseStatus(err)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	require.Len(t, causes, n, "Close returned before every handler")
	for range n {
		require.ErrorIs(t, <-causes, httpx.ErrServerClosing)
	}
	readers.Wait()
	for range n {
		require.Equal(t, websocket.StatusGoingAway, <-codes)
	}
	for _, c := range conns {
		_ = c.CloseNow()
	}
	deadline := time.Now().Add(hangLimit)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(pollEvery)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
}

// TestCloseTellsConnectionsAtItsStart: during a drain delay of an hour,
// the connection has its 1001 at once.
func TestCloseTellsConnectionsAtItsStart(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithDrainDelay(time.Hour))
	causes := make(chan error, 1)
	require.NoError(t, ws.Route(s, "/idle", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	c := wstest.DialURL(t, "ws://"+ln.Addr().String()+"/idle")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends the drain delay on failure too
	done := make(chan error, 1)
	go func() { done <- s.Close(ctx) }()
	code, _ := closed(t, c)
	assert.Equal(t, websocket.StatusGoingAway, code)
	assert.ErrorIs(t, <-causes, httpx.ErrServerClosing)
	cancel() // ends the drain delay; the handler may not have returned yet
	if err := <-done; err != nil {
		assert.ErrorIs(t, err, context.Canceled)
	}
	<-served
}

// TestAConnectionOutlivesTheRequestTimeout: the server's request
// time-out bounds requests, not connections.
func TestAConnectionOutlivesTheRequestTimeout(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithRequestTimeout(time.Second))
	deadlines := make(chan bool, 1)
	require.NoError(t, ws.Route(s, "/ws", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		_, has := ctx.Deadline()
		deadlines <- has
		return nil
	}))
	wstest.Dial(t, s, "/ws")
	assert.False(t, <-deadlines)
}

// TestAMessageTrickledPastTheReadTimeoutIsCut: a peer that begins a
// message and stops is cut at the read time-out.
func TestAMessageTrickledPastTheReadTimeoutIsCut(t *testing.T) {
	t.Parallel()
	s := app.New()
	causes := make(chan error, 1)
	require.NoError(t, ws.Route(s, "/ws", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		_, err := c.Receive(ctx)
		causes <- context.Cause(ctx)
		return err
	}, ws.ReadTimeout(20*time.Millisecond)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, s.Close(waitCtx(t)))
		<-served
	})
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
	// A text frame announcing 10 bytes (masked, as a client's is), of
	// which 3 come.
	_, err = conn.Write([]byte{0x81, 0x80 | 10, 1, 2, 3, 4, 'a', 'b', 'c'})
	require.NoError(t, err)
	select {
	case err := <-causes:
		assert.ErrorIs(t, err, ws.ErrReadTimeout)
	case <-time.After(hangLimit):
		t.Fatal("the trickling peer was not cut")
	}
}
