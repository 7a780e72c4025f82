package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/apptest"
)

func TestEventsTicksWithTheDecoratorsItsContextSees(t *testing.T) {
	t.Parallel()
	for _, share := range []bool{false, true} {
		data := func(n string) string { return `{"answer":42,"foo":"foo","n":` + n + `}` }
		if share {
			data = func(n string) string { return `{"answer":42,"foo":"foo","bar":"bar","n":` + n + `}` }
		}
		for _, via := range []string{"inject", "socket"} {
			t.Run(via+"/share="+map[bool]string{false: "off", true: "on"}[share], func(t *testing.T) {
				t.Parallel()
				s := build([]string{"k1"}, share, time.Millisecond)
				require.NoError(t, s.Ready())
				var res *http.Response
				if via == "inject" {
					var err error
					res, err = s.Inject(httptest.NewRequest(http.MethodGet, "/events", nil))
					require.NoError(t, err)
				} else {
					base, served := serve(t, s)
					defer func() { assert.NoError(t, <-served) }()
					var err error
					res, err = http.Get(base + "/events")
					require.NoError(t, err)
				}
				defer func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					assert.NoError(t, s.Close(ctx))
				}()
				defer res.Body.Close() // the client leaves: the handler ends
				assert.Equal(t, 200, res.StatusCode)
				assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
				assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
				body := bufio.NewReader(res.Body)
				for _, n := range []string{"1", "2", "3"} {
					assert.Equal(t, "id: "+n+"\nevent: tick\ndata: "+data(n)+"\n", apptest.ReadEvent(t, body))
				}
			})
		}
	}
}

// TestEventsFirstTickIsImmediate asks with a tick of an hour: the first
// event must not wait for it.
func TestEventsFirstTickIsImmediate(t *testing.T) {
	t.Parallel()
	s := build([]string{"k1"}, false, time.Hour)
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/events", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "id: 1\nevent: tick\ndata: {\"answer\":42,\"foo\":\"foo\",\"n\":1}\n", apptest.ReadEvent(t, bufio.NewReader(res.Body)))
	require.NoError(t, s.Close(context.Background()))
}

// runExample builds the example and runs it with args, until it has
// logged that it listens: it returns the address, the process and its
// exit, which a test that does not wait for it leaves to the cleanup.
func runExample(t *testing.T, args ...string) (addr string, cmd *exec.Cmd, exited <-chan error) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "example")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	cmd = exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	logs := bufio.NewReader(stderr)
	for addr == "" {
		line, err := logs.ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			require.NoError(t, err, "the example ended before listening")
		}
		var entry struct{ Msg, Address string }
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "server listening" {
			addr = entry.Address
		}
	}
	waited := make(chan error, 1)
	go func() {
		_, _ = io.Copy(io.Discard, logs) // keep the pipe drained
		err := cmd.Wait()
		waited <- err
		done <- err
	}()
	return addr, cmd, waited
}

// TestSIGTERMSendsCloseToOpenStreams runs the built example, opens two
// streams, and sends it SIGTERM: each stream gets "event: close", and
// the process exits 0.
func TestSIGTERMSendsCloseToOpenStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	t.Parallel()
	addr, cmd, exited := runExample(t, "-port", "0", "-keys", "k1", "-tick", "1h", "-drain", "200ms")

	var streams []*bufio.Reader
	for range 2 {
		res, err := http.Get(addr + "/events")
		require.NoError(t, err)
		defer res.Body.Close()
		body := bufio.NewReader(res.Body)
		assert.Contains(t, apptest.ReadEvent(t, body), "event: tick\n")
		streams = append(streams, body)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	signalled := time.Now()
	for _, body := range streams {
		assert.Equal(t, "event: close\ndata: \n", apptest.ReadEvent(t, body))
	}
	select {
	case err := <-exited:
		assert.NoError(t, err, "exit status 0")
		// Open streams do not hold the close: streams that held it would
		// keep the process until Close's context ends, the drain delay
		// (200ms) plus 10 s. Half that tells the two apart on a loaded
		// machine; a healthy exit takes about the drain delay.
		assert.Less(t, time.Since(signalled), 200*time.Millisecond+5*time.Second, "exit after SIGTERM")
	case <-time.After(30 * time.Second):
		require.FailNow(t, "the example did not exit")
	}
}

// TestSIGTERMWithAStalledStreamExitsAfterTheDrain: a client of /events
// that reads nothing, with the kernel's buffers between it and the server
// full so that the stream's writes block, does not hold the process: it
// exits 0 within the drain delay plus 1.5 s of SIGTERM. (Without the
// close's write deadline on streams it exits when the blocked write's
// reply time-out, 30 s, or Close's context, the drain delay plus 10 s,
// ends.)
func TestSIGTERMWithAStalledStreamExitsAfterTheDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("needs /proc/net/tcp (Linux) to see the stream's send queue")
	}
	t.Parallel()
	const drain = 200 * time.Millisecond
	addr, cmd, exited := runExample(t, "-port", "0", "-keys", "k1", "-tick", "10us", "-drain", drain.String())

	// A client with a small receive buffer, so the server's buffers fill
	// fast: every tick is sent at once, and nothing is read.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return errors.Join(err, serr)
	}}
	host := strings.TrimPrefix(addr, "http://")
	conn, err := d.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)

	// The stream's writes block once the server's send queue stops
	// growing: wait until it holds data and has not moved for ten looks
	// in a row, 200 ms in which the tick would have sent hundreds of
	// events. The queue fills at a few hundred KB/s, to a few MB: this
	// takes about ten seconds.
	server := tcpPort(t, host)
	client := tcpPort(t, conn.LocalAddr().String())
	last, still := -1, 0
	require.Eventually(t, func() bool {
		n := sendQueue(t, server, client)
		if n > 0 && n == last {
			still++
		} else {
			still = 0
		}
		last = n
		return still >= 10
	}, time.Minute, 20*time.Millisecond, "the stream's send queue never filled")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		assert.NoError(t, err, "exit status 0")
	case <-time.After(drain + 1500*time.Millisecond):
		require.FailNow(t, "the example did not exit within the drain delay plus 1.5 s of SIGTERM")
	}
}

// tcpPort is the port of addr ("host:port").
func tcpPort(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return n
}

// sendQueue is how many bytes the IPv4 socket on local port local,
// connected to remote port remote, has sent but not had acknowledged
// (tx_queue in /proc/net/tcp); -1 when there is no such socket.
func sendQueue(t *testing.T, local, remote int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	require.NoError(t, err)
	port := func(hexAddr string) int {
		_, p, _ := strings.Cut(hexAddr, ":")
		n, _ := strconv.ParseInt(p, 16, 32)
		return int(n)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || port(f[1]) != local || port(f[2]) != remote {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		n, err := strconv.ParseInt(tx, 16, 64)
		require.NoError(t, err)
		return int(n)
	}
	return -1
}
