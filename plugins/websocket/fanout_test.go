package websocket_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/pubsub"
	ws "github.com/burrow-go/burrow/plugins/websocket"
	"github.com/burrow-go/burrow/plugins/websocket/wstest"
)

type todo struct {
	Title string `json:"title" validate:"required"`
}

// instance is one server of two: POST /todos publishes, GET /live
// forwards what is published to the WebSocket.
func instance(t *testing.T, link pubsub.Transport) *app.Server {
	s := apptest.New(t)
	bus := pubsub.New(pubsub.WithTransport(link))
	require.NoError(t, s.Register(bus.Plugin()))
	require.NoError(t, app.Post(s, "/todos", func(_ context.Context, in struct {
		app.In
		Todo todo `body:""`
		Bus  *pubsub.Bus
	}) (app.NoContent, error) {
		b, err := json.Marshal(in.Todo)
		if err != nil {
			return app.NoContent{}, err
		}
		in.Bus.Publish("todos", b)
		return app.NoContent{}, nil
	}))
	require.NoError(t, ws.Route(s, "/live", func(ctx context.Context, in struct {
		app.In
		Bus *pubsub.Bus
	}, c *ws.Conn[struct{}, todo]) error {
		sub := in.Bus.Subscribe("todos")
		defer sub.Close()
		if err := c.Send(todo{Title: "subscribed"}); err != nil { // the test's cue
			return err
		}
		for {
			select {
			case m, ok := <-sub.C:
				if !ok {
					return sub.Err() // dropped: the client reconnects and reloads
				}
				var t todo
				if err := json.Unmarshal(m.Data, &t); err != nil {
					return err
				}
				if err := c.Send(t); err != nil {
					return err
				}
			case <-ctx.Done():
				return nil
			}
		}
	}))
	return s
}

func TestAnEventPublishedOnOneInstanceReachesWebSocketsOnEvery(t *testing.T) {
	t.Parallel()
	link := pubsub.NewMemory()
	one, two := instance(t, link), instance(t, link)
	c1, c2 := wstest.Dial(t, one, "/live"), wstest.Dial(t, two, "/live")
	// The subscriptions begin in the handlers, after the handshake.
	assert.Equal(t, "subscribed", receive[todo](t, c1).Title)
	assert.Equal(t, "subscribed", receive[todo](t, c2).Title)
	res := apptest.Do(t, one, "POST", "/todos", jsonBody(`{"title":"first"}`), "Content-Type", "application/json")
	require.Equal(t, 204, res.StatusCode, res.Body)
	assert.Equal(t, todo{Title: "first"}, receive[todo](t, c1))
	assert.Equal(t, todo{Title: "first"}, receive[todo](t, c2))
}

func jsonBody(s string) *strings.Reader { return strings.NewReader(s) }
