package websocket_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
	ws "github.com/burrow-go/burrow/plugins/websocket"
	"github.com/burrow-go/burrow/plugins/websocket/wstest"
)

func asClose(err error, ce *websocket.CloseError) bool { return errors.As(err, ce) }

type chatIn struct {
	app.In
	Room string `path:"room" validate:"max=8"`
}

type say struct {
	Text string `json:"text" validate:"required,max=10"`
}

type said struct {
	Room string `json:"room"`
	Text string `json:"text"`
}

// echo answers every message, and answers a message that breaks its
// rules with the error, staying open; "bye" ends it.
func echo(ctx context.Context, in chatIn, c *ws.Conn[say, said]) error {
	for {
		m, err := c.Receive(ctx)
		var he *httpx.Error
		switch {
		case errors.As(err, &he) && m.Text == "fail":
			return err
		case errors.As(err, &he):
			if err := c.Send(said{Room: in.Room, Text: "error: " + he.Message}); err != nil {
				return err
			}
			continue
		case err != nil:
			return nil // the connection ended
		case m.Text == "bye":
			return nil
		}
		if err := c.Send(said{Room: in.Room, Text: m.Text}); err != nil {
			return err
		}
	}
}

func TestEchoesTypedMessagesInProcessAndOverASocket(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, ws.Route(s, "/chat/:room", echo))
	base := apptest.Serve(t, s)
	for name, c := range map[string]*websocket.Conn{
		"in process": wstest.Dial(t, s, "/chat/lobby"),
		"socket":     wstest.DialURL(t, base+"/chat/lobby"),
	} {
		t.Run(name, func(t *testing.T) {
			send(t, c, say{Text: "hi"})
			assert.Equal(t, said{Room: "lobby", Text: "hi"}, receive[said](t, c))
			send(t, c, say{Text: "way too long a text"})
			assert.Equal(t, "error: body/text must NOT have more than 10 characters", receive[said](t, c).Text)
			require.NoError(t, c.Write(waitCtx(t), websocket.MessageText, []byte(`{"text":"a","text":"b"}`)))
			assert.Contains(t, receive[said](t, c).Text, "duplicate")
			send(t, c, say{Text: "bye"})
			code, _ := closed(t, c)
			assert.Equal(t, websocket.StatusNormalClosure, code)
		})
	}
}

func TestHandlerErrorsCloseTheConnection(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, ws.Route(s, "/invalid", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		_, err := c.Receive(ctx)
		return err // a decoding error
	}))
	require.NoError(t, ws.Route(s, "/broken", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		return errors.New("database down")
	}))
	c := wstest.Dial(t, s, "/invalid")
	require.NoError(t, c.Write(waitCtx(t), websocket.MessageText, []byte(`{"text":42}`)))
	code, reason := closed(t, c)
	assert.Equal(t, websocket.StatusInvalidFramePayloadData, code)
	assert.Equal(t, "body/text must be string", reason)

	code, reason = closed(t, wstest.Dial(t, s, "/broken"))
	assert.Equal(t, websocket.StatusInternalError, code)
	assert.Equal(t, "internal error", reason, "the error itself is logged, not sent")
}

func TestOversizedBinaryAndTooFastMessagesClose(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	causes := make(chan error, 3)
	drain := func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		for {
			if _, err := c.Receive(ctx); err != nil && ctx.Err() != nil {
				causes <- context.Cause(ctx)
				return nil
			}
		}
	}
	require.NoError(t, ws.Route(s, "/small", drain, ws.ReadLimit(64)))
	require.NoError(t, ws.Route(s, "/slow", drain, ws.MessageRate(0.001, 2)))
	require.NoError(t, ws.Route(s, "/json", drain))

	c := wstest.Dial(t, s, "/small")
	send(t, c, say{Text: "fits"})
	require.NoError(t, c.Write(waitCtx(t), websocket.MessageText, []byte(`{"text":"`+strings.Repeat("x", 64)+`"}`)))
	code, _ := closed(t, c)
	assert.Equal(t, websocket.StatusMessageTooBig, code)
	assert.ErrorIs(t, <-causes, ws.ErrClosed)

	c = wstest.Dial(t, s, "/slow")
	send(t, c, say{Text: "1"})
	send(t, c, say{Text: "2"})
	send(t, c, say{Text: "3"})
	code, reason := closed(t, c)
	assert.Equal(t, websocket.StatusPolicyViolation, code)
	assert.Equal(t, "too many messages", reason)
	assert.ErrorIs(t, <-causes, ws.ErrTooFast)

	c = wstest.Dial(t, s, "/json")
	require.NoError(t, c.Write(waitCtx(t), websocket.MessageBinary, []byte{1, 2, 3}))
	code, _ = closed(t, c)
	assert.Equal(t, websocket.StatusUnsupportedData, code)
	assert.ErrorIs(t, <-causes, ws.ErrBinary)
}

func TestCrossSiteHandshakeIsRefused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	hello := func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		return c.Send(said{Text: "hello"})
	}
	require.NoError(t, ws.Route(s, "/plain", hello))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Register(cors.Plugin(cors.Origins("https://app.example"))),
			ws.Route(s, "/ws", hello))
	}, app.Name("named")))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Register(cors.Plugin(cors.Origins("*"))),
			ws.Route(s, "/ws", hello))
	}, app.Name("any"), app.Prefix("/any")))

	wstest.Dial(t, s, "/plain") // serves s in process until this test ends, not a subtest
	for _, tc := range []struct {
		path, origin string
		ok           bool
	}{
		{"/plain", "", true},                         // not a browser
		{"/plain", "http://" + wstest.Host, true},    // same origin
		{"/plain", "http://BURROW.test", true},       // hosts compare without case
		{"/plain", "https://evil.example", false},    // another site, no CORS policy
		{"/plain", "http://burrow.test.evil", false}, // a look-alike
		{"/plain", "null", false},                    // a sandboxed page
		{"/ws", "https://app.example", true},         // named by the policy
		{"/ws", "https://evil.example", false},       // not named
		{"/any/ws", "https://evil.example", false},   // "*" admits no handshake
		{"/any/ws", "http://" + wstest.Host, true},   // same origin still is
	} {
		t.Run(tc.path+" "+tc.origin, func(t *testing.T) {
			var header []string
			if tc.origin != "" {
				header = []string{"Origin", tc.origin}
			}
			c, res := wstest.Handshake(t, s, tc.path, header...)
			if !tc.ok {
				require.Nil(t, c, "upgraded")
				assert.Equal(t, http.StatusForbidden, res.StatusCode)
				assert.Contains(t, res.Body, "WebSocket handshake from another origin refused")
				assert.Empty(t, res.Header.Get("Upgrade"))
				return
			}
			require.NotNil(t, c, "refused: %+v", res)
			assert.Equal(t, "hello", receive[said](t, c).Text)
		})
	}
}

func TestHooksRunBeforeTheUpgradeAndRequestValuesLiveForTheConnection(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	var cleaned atomic.Int32
	type user struct{ Name string }
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.AddHook(app.PreHandler, func(req *httpx.Request) error {
				if req.Header("Authorization") != "Bearer k" {
					return httpx.NewError(http.StatusUnauthorized, "ERR_AUTH", "who are you?")
				}
				return nil
			}),
			s.ProvideRequest(app.Provider(func(_ context.Context, _ struct{}) (*user, func(bool) error, error) {
				return &user{Name: "ann"}, func(bool) error { cleaned.Add(1); return nil }, nil
			})),
			ws.Route(s, "/me", func(ctx context.Context, in struct {
				app.In
				User *user
			}, c *ws.Conn[say, said]) error {
				for {
					m, err := c.Receive(ctx)
					if err != nil {
						return nil
					}
					reply := said{Text: in.User.Name + ": " + m.Text}
					if cleaned.Load() != 0 {
						reply.Text = "cleaned up too early"
					}
					if err := c.Send(reply); err != nil {
						return err
					}
				}
			}))
	}))
	c, res := wstest.Handshake(t, s, "/me")
	require.Nil(t, c)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Contains(t, res.Body, "who are you?")

	c = wstest.Dial(t, s, "/me", "Authorization", "Bearer k")
	send(t, c, say{Text: "one"})
	assert.Equal(t, "ann: one", receive[said](t, c).Text)
	send(t, c, say{Text: "two"})
	assert.Equal(t, "ann: two", receive[said](t, c).Text)
	assert.Zero(t, cleaned.Load())
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	require.Eventually(t, func() bool { return cleaned.Load() == 1 }, hangLimit, pollEvery)
}

func TestARequestThatIsNoHandshakeGets426(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, ws.Route(s, "/ws", func(context.Context, struct{}, *ws.Conn[say, said]) error { return nil }))
	res := apptest.Get(t, s, "/ws")
	assert.Equal(t, http.StatusUpgradeRequired, res.StatusCode)
	assert.Equal(t, "websocket", res.Header.Get("Upgrade"))
}

func TestBadMessageTypesFailReady(t *testing.T) {
	t.Parallel()
	type badRule struct {
		N int `json:"n" validate:"format=email"`
	}
	type unencodable struct{ C chan int }
	for name, reg := range map[string]func(s *app.Server) error{
		"recv": func(s *app.Server) error {
			return ws.Route(s, "/a", func(context.Context, struct{}, *ws.Conn[badRule, said]) error { return nil })
		},
		"send": func(s *app.Server) error {
			return ws.Route(s, "/a", func(context.Context, struct{}, *ws.Conn[say, unencodable]) error { return nil })
		},
		"option": func(s *app.Server) error {
			return ws.Route(s, "/a", func(context.Context, struct{}, *ws.Conn[say, said]) error { return nil }, ws.SendQueue(0))
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := apptest.New(t)
			regErr := reg(s)
			require.Error(t, regErr)
			err := s.Ready()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "WebSocket route /a")
		})
	}
}

func TestAPanickingHandlerClosesItsConnection1011(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, ws.Route(s, "/boom", func(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
		if _, err := c.Receive(ctx); err != nil {
			return nil
		}
		panic("boom")
	}))
	c := wstest.Dial(t, s, "/boom")
	send(t, c, say{Text: "go"})
	code, _ := closed(t, c)
	assert.Equal(t, websocket.StatusInternalError, code)
	c2 := wstest.Dial(t, s, "/boom") // the server goes on
	require.NoError(t, c2.Close(websocket.StatusNormalClosure, ""))
}
