package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/bench/internal/stack"
)

// TestServesEachPeer starts each stack on a real socket, asks for the
// route as the load generator does, and stops it as the script does.
func TestServesEachPeer(t *testing.T) {
	t.Parallel()
	for _, peer := range []string{"burrow", "chi"} {
		t.Run(peer, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var logs bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- serve(ctx, peer, ln, &logs) }()

			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+stack.Path, nil)
			require.NoError(t, err)
			req.Header.Set("Origin", stack.Origin)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := client.Do(req)
			require.NoError(t, err)
			_, err = io.Copy(io.Discard, res.Body)
			require.NoError(t, err)
			res.Body.Close()
			client.CloseIdleConnections()
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
			assert.Equal(t, stack.Origin, res.Header.Get("Access-Control-Allow-Origin"))

			cancel()
			require.NoError(t, <-done, "a graceful stop")
		})
	}
}

func TestRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"no port":      {"-peer", "chi"},
		"port too big": {"-peer", "chi", "-port", "70000"},
		"unknown peer": {"-peer", "gin", "-port", "8080"},
		"unknown flag": {"-keys", "k1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			assert.Error(t, run(context.Background(), args, &stderr))
		})
	}
}
