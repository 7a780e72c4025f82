package websocket_test

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/coder/websocket"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	ws "github.com/burrow-go/burrow/plugins/websocket"
)

type greeting struct {
	Name string `json:"name" validate:"required,max=20"`
}

type hello struct {
	Text string `json:"text"`
}

func Example() {
	s := app.New(app.WithoutRequestLogging())
	_ = ws.Route(s, "/hello", func(ctx context.Context, _ struct{}, c *ws.Conn[greeting, hello]) error {
		for {
			g, err := c.Receive(ctx)
			var bad *httpx.Error
			switch {
			case errors.As(err, &bad): // a message that breaks greeting's rules
				g.Name = "stranger (" + bad.Message + ")"
			case err != nil:
				return nil // the client left
			}
			if err := c.Send(hello{Text: "hello, " + g.Name}); err != nil {
				return err
			}
		}
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go s.Serve(ln)
	defer s.Close(context.Background())

	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String()+"/hello", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.CloseNow()
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"name":"Ann"}`))
	_, msg, _ := c.Read(ctx)
	fmt.Println(string(msg))
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"name":""}`))
	_, msg, _ = c.Read(ctx)
	fmt.Println(string(msg))
	// Output:
	// {"text":"hello, Ann"}
	// {"text":"hello, stranger (body/name is required)"}
}
