package websocket_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// hangLimit bounds what a test waits for; it only turns a hang into a
// failure.
const hangLimit = 10 * time.Second

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	t.Cleanup(cancel)
	return ctx
}

// send writes v as a JSON text message.
func send(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, c.Write(waitCtx(t), websocket.MessageText, b))
}

// receive reads one JSON message into a T.
func receive[T any](t *testing.T, c *websocket.Conn) T {
	t.Helper()
	typ, b, err := c.Read(waitCtx(t))
	require.NoError(t, err)
	require.Equal(t, websocket.MessageText, typ)
	var v T
	require.NoError(t, json.Unmarshal(b, &v), "message %q", b)
	return v
}

// closed reads until the connection ends and returns its close status.
func closed(t *testing.T, c *websocket.Conn) (websocket.StatusCode, string) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		_, _, err := c.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if ok := asClose(err, &ce); ok {
				return ce.Code, ce.Reason
			}
			require.NoError(t, ctx.Err(), "the connection did not close")
			return -1, err.Error()
		}
	}
}

// pollEvery is how often a condition is checked while waiting.
const pollEvery = 5 * time.Millisecond
