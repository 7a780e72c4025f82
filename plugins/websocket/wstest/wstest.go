// Package wstest dials a Burrow server's WebSocket routes in tests: in
// process, through connections in memory (Dial, Handshake), or over a
// real socket (DialURL, HandshakeURL, to an apptest.Serve URL). A
// connection is closed when the test ends. Like apptest's helpers, they
// fail the test themselves when the dial cannot be made and leave every
// assertion to the caller.
package wstest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// Host is the host in-process requests are made to: the Host header
// and, for a same-origin page, its Origin ("http://" + Host).
const Host = "burrow.test"

// dialTimeout bounds a handshake.
const dialTimeout = 10 * time.Second

// Dial dials path on s in process and returns the connection; a
// handshake the server refuses fails tb with its status and body. The
// headers are name, value pairs (an Origin, an Authorization).
func Dial(tb testing.TB, s *app.Server, path string, header ...string) *websocket.Conn {
	tb.Helper()
	c, res := Handshake(tb, s, path, header...)
	if c == nil {
		tb.Fatalf("wstest: the handshake to %s was refused: %d %s", path, res.StatusCode, res.Body)
	}
	return c
}

// Handshake dials path on s in process: it returns the connection, or
// nil and the answer when the server refused the handshake (its status,
// headers and body).
func Handshake(tb testing.TB, s *app.Server, path string, header ...string) (*websocket.Conn, *apptest.Response) {
	tb.Helper()
	ln := inProcess(tb, s)
	client := &http.Client{Transport: &http.Transport{DialContext: ln.dial, DisableCompression: true}}
	return handshake(tb, "ws://"+Host+path, client, header)
}

// DialURL dials url (ws:// or http://, as apptest.Serve returns it, with
// the route's path) over a real socket; see Dial.
func DialURL(tb testing.TB, url string, header ...string) *websocket.Conn {
	tb.Helper()
	c, res := HandshakeURL(tb, url, header...)
	if c == nil {
		tb.Fatalf("wstest: the handshake to %s was refused: %d %s", url, res.StatusCode, res.Body)
	}
	return c
}

// HandshakeURL dials url over a real socket; see Handshake.
func HandshakeURL(tb testing.TB, url string, header ...string) (*websocket.Conn, *apptest.Response) {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, Proxy: nil}}
	return handshake(tb, url, client, header)
}

func handshake(tb testing.TB, url string, client *http.Client, header []string) (*websocket.Conn, *apptest.Response) {
	tb.Helper()
	if len(header)%2 != 0 {
		tb.Fatalf("wstest: headers come in name, value pairs; %q has no value", header[len(header)-1])
	}
	h := http.Header{}
	for i := 0; i < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: client, HTTPHeader: h})
	if err == nil {
		tb.Cleanup(func() { _ = c.CloseNow() })
		return c, nil
	}
	if res == nil {
		tb.Fatalf("wstest: dialing %s: %v", url, err)
	}
	var body []byte
	if res.Body != nil {
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
	}
	return nil, &apptest.Response{StatusCode: res.StatusCode, Header: res.Header, Body: string(body)}
}

// servers are the in-process listeners, one a server, served until its
// test ends.
var (
	mu      sync.Mutex
	servers = map[*app.Server]*memListener{}
)

// inProcess returns the memory listener s is served on, serving it on
// one first: s is closed when tb ends.
func inProcess(tb testing.TB, s *app.Server) *memListener {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if ln := servers[s]; ln != nil {
		return ln
	}
	if err := s.Ready(); err != nil {
		tb.Fatalf("wstest: %v", err)
	}
	ln := &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	servers[s] = ln
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			tb.Errorf("wstest: closing the server: %v", err)
		}
		<-served
		mu.Lock()
		delete(servers, s)
		mu.Unlock()
	})
	return ln
}

// memListener is a listener of in-memory connections (net.Pipe), which
// its dial makes.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr{} }

func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, errors.New("wstest: the server is closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// memAddr is the memory listener's address.
type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return Host }
