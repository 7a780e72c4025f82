package websocket_test

import (
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	ws "github.com/burrow-go/burrow/plugins/websocket"
	"github.com/burrow-go/burrow/plugins/websocket/wstest"
)

// counts is an Observer that keeps what it heard.
type counts struct {
	mu   sync.Mutex
	open map[string]int
	msgs map[string]int
}

func (c *counts) Connections(route, context string, delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open[route+" "+context] += delta
}

func (c *counts) Message(route, context, direction string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs[route+" "+context+" "+direction]++
}

func (c *counts) get(m map[string]int, key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m[key]
}

func TestObserveCountsConnectionsAndMessagesPerRoute(t *testing.T) {
	t.Parallel()
	o := &counts{open: map[string]int{}, msgs: map[string]int{}}
	s := apptest.New(t, app.WithRootName("root"))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return ws.Route(s, "/chat/:room", echo, ws.Observe(o))
	}, app.Name("chat"), app.Prefix("/v1")))
	c := wstest.Dial(t, s, "/v1/chat/lobby")
	const key = "/v1/chat/:room root > chat"
	require.Eventually(t, func() bool { return o.get(o.open, key) == 1 }, hangLimit, pollEvery, "%v", o.open)
	send(t, c, say{Text: "a"})
	receive[said](t, c)
	send(t, c, say{Text: "b"})
	receive[said](t, c)
	require.Eventually(t, func() bool { return o.get(o.msgs, key+" in") == 2 && o.get(o.msgs, key+" out") == 2 }, hangLimit, pollEvery)
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	require.Eventually(t, func() bool { return o.get(o.open, key) == 0 }, hangLimit, pollEvery)
}
