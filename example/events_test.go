package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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

// TestSIGTERMSendsCloseToOpenStreams runs the built example, opens two
// streams, and sends it SIGTERM: each stream gets "event: close", and
// the process exits 0.
func TestSIGTERMSendsCloseToOpenStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "example")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	cmd := exec.Command(bin, "-port", "0", "-keys", "k1", "-tick", "1h", "-drain", "200ms")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	logs := bufio.NewReader(stderr)
	addr := ""
	for addr == "" {
		line, err := logs.ReadString('\n')
		require.NoError(t, err, "the example ended before listening")
		var entry struct{ Msg, Address string }
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "server listening" {
			addr = entry.Address
		}
	}
	go func() {
		_, _ = io.Copy(io.Discard, logs) // keep the pipe drained
		exited <- cmd.Wait()
	}()

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
		_ = cmd.Process.Kill()
		require.FailNow(t, "the example did not exit")
	}
}
