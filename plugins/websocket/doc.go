// Package websocket serves typed WebSocket routes, on
// github.com/coder/websocket.
//
//	type say struct {
//		Text string `json:"text" validate:"required,max=280"`
//	}
//	websocket.Route(s, "/rooms/:room", func(ctx context.Context, in roomIn, c *websocket.Conn[say, said]) error {
//		for {
//			m, err := c.Receive(ctx) // decoded and validated as a request body
//			if err != nil {
//				return nil
//			}
//			c.Send(said{Room: in.Room, Text: m.Text}) // queued; never waits on the client
//		}
//	})
//
// A WebSocket route is a route like any other up to the upgrade: the
// hooks of its contexts (authentication, rate limits) run first and may
// refuse it, its input struct is planned at Ready and filled as a typed
// route's, and its request values live for the connection. Its inbound
// and outbound message types are checked when it is registered.
//
// It is safe by default. A handshake from a page of another origin is
// refused with 403 unless the CORS policy of the route's context names
// that origin (cors.Allows): browsers send cookies with cross-site
// handshakes. A message is at most DefaultReadLimit bytes (1009 beyond);
// reading a message and writing one are bounded by time-outs; pings
// drop dead peers; each connection's send queue is bounded, and a slow
// reader is cut rather than buffered for; MessageRate limits what a
// peer may send. When the server closes, every connection gets a close
// frame 1001 at the start of Close, and Close waits for the handlers
// within its deadline.
//
// Package wstest dials the routes in tests, in process or over a
// socket. Observe reports connections and messages to metrics (the
// Prometheus plugin's WebSockets). See docs/websocket.md.
//
// It lives in a module of its own, so that the framework's go.mod keeps
// its dependencies: github.com/coder/websocket.
package websocket
