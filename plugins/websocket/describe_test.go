package websocket_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	ws "github.com/burrow-go/burrow/plugins/websocket"
)

// TestRouteDescribesItsUpgrade: a WebSocket route tells its description
// (and the OpenAPI document made of it) that it switches to websocket
// with a 101, which messages each side sends, and that it refuses a
// request that is no handshake (426) and a cross-site one (403).
func TestRouteDescribesItsUpgrade(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, ws.Route(s, "/chat/:room", func(context.Context, chatIn, *ws.Conn[say, said]) error { return nil }))
	require.NoError(t, s.Ready())
	routes := s.Routes()
	require.Len(t, routes, 1)
	r := routes[0]
	assert.Equal(t, &app.UpgradeInfo{Protocol: "websocket", Receive: reflect.TypeFor[say](), Send: reflect.TypeFor[said]()}, r.Upgrade)
	var statuses []int
	for _, res := range r.Responses {
		statuses = append(statuses, res.Status)
	}
	assert.Equal(t, []int{101, 403, 426}, statuses)
}
