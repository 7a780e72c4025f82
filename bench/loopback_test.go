package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/burrow-go/burrow/app"
)

// The input workload over a loopback socket: one keep-alive connection,
// the same request written N times, each answer read before the next.
// The in-process benchmarks (BenchmarkEcho) answer into a recorder, which
// has no connection: the read and write deadlines a server arms cost
// nothing there. Here they reach the socket, as they do under load, so
// Burrow with its default time-outs (Serve) is compared with the
// hand-written handler served as the peer benchmark serves it
// (http.ListenAndServe: no time-outs). The client is the same for both;
// count instructions with callgrind rather than time it.

// serveLoopback serves the peer on 127.0.0.1 and returns its address.
func serveLoopback(tb testing.TB, name string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	for _, peer := range inputPeers {
		if peer.name != name {
			continue
		}
		h := peer.build(tb)
		if s, ok := h.(*app.Server); ok {
			go func() { _ = s.Serve(ln) }()
			tb.Cleanup(func() { _ = s.Close(context.Background()) })
			return ln.Addr().String()
		}
		srv := &http.Server{Handler: h} // #nosec G112 -- as the peer benchmark serves it
		go func() { _ = srv.Serve(ln) }()
		tb.Cleanup(func() { _ = srv.Close() })
		return ln.Addr().String()
	}
	tb.Fatalf("no peer %q", name)
	return ""
}

// client posts one body again and again on one connection.
type client struct {
	c   net.Conn
	br  *bufio.Reader
	req []byte
	buf []byte
}

func dial(tb testing.TB, addr, body string) *client {
	tb.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	req := fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	return &client{c: c, br: bufio.NewReaderSize(c, 4096), req: []byte(req), buf: make([]byte, 4096)}
}

// post sends the request and reads the answer; it returns its status.
func (cl *client) post() (int, []byte, error) {
	if _, err := cl.c.Write(cl.req); err != nil {
		return 0, nil, err
	}
	line, err := cl.br.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	if len(line) < 12 {
		return 0, nil, fmt.Errorf("status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, err
	}
	n := -1
	for {
		line, err = cl.br.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return 0, nil, err
			}
		}
	}
	if n < 0 || n > len(cl.buf) {
		return 0, nil, fmt.Errorf("content length %d", n)
	}
	if _, err := io.ReadFull(cl.br, cl.buf[:n]); err != nil {
		return 0, nil, err
	}
	return status, cl.buf[:n], nil
}

func benchLoopback(b *testing.B, body string, status int) {
	for _, name := range []string{"burrow", "nethttp"} {
		b.Run(name, func(b *testing.B) {
			cl := dial(b, serveLoopback(b, name), body)
			b.ReportAllocs()
			for b.Loop() {
				got, answer, err := cl.post()
				if err != nil || got != status {
					b.Fatalf("answered %d %s, %v; want %d", got, answer, err, status)
				}
			}
		})
	}
}

// BenchmarkEchoLoopback is POST /echo with the valid body over a socket.
func BenchmarkEchoLoopback(b *testing.B) { benchLoopback(b, echoValid, http.StatusOK) }

// BenchmarkEchoInvalidLoopback is the 400 path over a socket.
func BenchmarkEchoInvalidLoopback(b *testing.B) {
	benchLoopback(b, echoInvalid, http.StatusBadRequest)
}

// TestEveryPeerAnswersOverLoopback guards the loopback comparison: both
// peers answer the same bytes on a reused connection.
func TestEveryPeerAnswersOverLoopback(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"burrow", "nethttp"} {
		cl := dial(t, serveLoopback(t, name), echoValid)
		for range 3 {
			status, answer, err := cl.post()
			if err != nil || status != http.StatusOK || string(bytes.TrimSpace(answer)) != echoValid {
				t.Errorf("%s answered %d %s, %v", name, status, answer, err)
			}
		}
	}
}
