package websocket

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
)

// Route registers h as the WebSocket route at path (a GET route) in s's
// context. The route is a route like any other up to the upgrade: its
// context's hooks (authentication, rate limits) run first and may refuse
// it, In is planned at Ready and filled as a typed route's (app.Get) —
// path, query, header and cookie values, request values, services — and
// the request values live until h returns, for the whole connection.
// Recv and Send are the messages' types, checked at registration (a
// validate tag that cannot apply, a Send that encoding/json cannot
// encode fail it, and Ready with it); each message is one JSON text
// frame.
//
// Before the upgrade, a request from a browser page of another origin
// (its Origin header names a host other than the request's) is refused
// with 403 unless the CORS policy of the route's context names that
// origin (cors.Allows): a browser sends the user's cookies with a
// cross-site handshake and no preflight, so without the check any site
// could act as the user. A request that is not a WebSocket handshake is
// answered 426.
//
// h's context ends with the connection: when the peer closes it or is
// lost, when it is cut (a slow reader, a dead peer, a message too large
// or too fast), and when the server begins to close, with the cause
// httpx.ErrServerClosing — the connection then gets a close frame 1001
// (going away), and Close waits for h to return within its deadline.
// When h returns, the connection is closed: 1000 (normal) for nil, 1007
// (invalid data) for a message's decoding or validation error, 1011
// (internal error) for any other error, which is logged.
func Route[In, Recv, Send any](s *app.Server, path string, h func(context.Context, In, *Conn[Recv, Send]) error, opts ...Option) error {
	cfg, err := newConfig(opts)
	if err == nil && h == nil {
		err = errors.New("nil handler")
	}
	var dec *app.Decoder[Recv]
	if err == nil {
		dec, err = app.NewDecoder[Recv]()
	}
	if err == nil {
		if err = app.CheckEncodable[Send](); err != nil {
			err = fmt.Errorf("message type %v %w", reflect.TypeFor[Send](), err)
		}
	}
	if err != nil {
		err = fmt.Errorf("WebSocket route %s%s in %s: %w", s.Prefix(), path, s.Path(), err)
		_ = s.OnReady(func() error { return err }) // Ready fails even when the caller drops err
		return err
	}
	rt := &route[In, Recv, Send]{
		h: h, cfg: cfg, dec: dec, closing: s.Closing(),
		obs: observed{o: cfg.observer, route: s.Prefix() + path, context: s.Path()},
	}
	var handler any = func(rep *httpx.Reply, in In) error { return rt.serve(rep, in) }
	if reflect.TypeFor[In]() == reflect.TypeFor[struct{}]() {
		handler = func(rep *httpx.Reply) error { var in In; return rt.serve(rep, in) }
	}
	return s.Get(path, handler, cfg.routeOpts...)
}

// route is a WebSocket route's handler.
type route[In, Recv, Send any] struct {
	h       func(context.Context, In, *Conn[Recv, Send]) error
	cfg     *config
	dec     *app.Decoder[Recv]
	closing context.Context // the server's: done once Close has begun
	obs     observed
}

// errUpgradeRequired answers a request to a WebSocket route that is not
// a handshake.
func errUpgradeRequired() error {
	return httpx.NewError(http.StatusUpgradeRequired, "ERR_WEBSOCKET_UPGRADE_REQUIRED",
		"This route is a WebSocket: the request must be a WebSocket handshake")
}

// errCrossOrigin refuses a handshake from a page of another origin.
func errCrossOrigin() error {
	return httpx.NewError(http.StatusForbidden, "ERR_WEBSOCKET_ORIGIN",
		"WebSocket handshake from another origin refused")
}

func (rt *route[In, Recv, Send]) serve(rep *httpx.Reply, in In) error {
	req := rep.Request()
	r := req.Raw()
	if !headerHas(r.Header, "Upgrade", "websocket") {
		rep.SetHeader("Upgrade", "websocket")
		return errUpgradeRequired()
	}
	if !sameOrigin(r) && !cors.Allows(r) {
		return errCrossOrigin()
	}
	ws, err := websocket.Accept(rep.Raw(), r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // the origin is checked above
	if err != nil {
		return nil // Accept answered the client (a bad version or key)
	}
	ws.SetReadLimit(rt.cfg.readLimit)
	// The request's values, without its end or time-out: the connection
	// outlives the request's time-out.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(req.Context()))
	c := &Conn[Recv, Send]{
		ws: ws, cfg: rt.cfg, dec: rt.dec, obs: rt.obs, ctx: ctx, cancel: cancel,
		in: make(chan inbound[Recv]), readDone: make(chan struct{}),
	}
	rt.obs.connections(1)
	defer rt.obs.connections(-1)
	goingAway := make(chan struct{})
	stopClosing := context.AfterFunc(rt.closing, func() {
		defer close(goingAway)
		c.closeWith(httpx.ErrServerClosing, websocket.StatusGoingAway, "server closing")
	})
	if rt.cfg.pingEvery > 0 {
		c.mu.Lock()
		c.ping = time.AfterFunc(rt.cfg.pingEvery, c.keepAlive)
		c.mu.Unlock()
	}
	go c.read()

	panicked := true // until h returns: a panic still closes the connection (1011), then goes on to the recovery
	defer func() {
		if panicked {
			c.finish(errPanicked, stopClosing, goingAway, req)
		}
	}()
	herr := rt.h(ctx, in, c)
	panicked = false
	c.finish(herr, stopClosing, goingAway, req)
	return nil
}

// errPanicked is the handler's error when it panicked: the framework's
// recovery logs the panic.
var errPanicked = errors.New("the WebSocket handler panicked")

// finish closes the connection once the handler returned herr, and waits
// for every goroutine of the connection.
func (c *Conn[Recv, Send]) finish(herr error, stopClosing func() bool, goingAway <-chan struct{}, req *httpx.Request) {
	c.stop()
	c.mu.Lock()
	if c.ping != nil {
		c.ping.Stop()
	}
	c.mu.Unlock()
	c.bg.Wait() // the queue written (or cut), the ping answered, a close begun by the reader done
	if !stopClosing() {
		<-goingAway
	}
	if c.ctx.Err() == nil {
		code, reason := closeStatus(herr)
		if code == websocket.StatusInternalError && herr != errPanicked {
			req.Log().Error("WebSocket handler failed", zap.Error(herr))
		}
		c.cancel(ErrClosed)
		_ = c.ws.Close(code, reason)
	}
	c.cancel(ErrClosed)
	_ = c.ws.CloseNow()
	<-c.readDone
}

// closeStatus is the close frame for the handler's error.
func closeStatus(err error) (websocket.StatusCode, string) {
	var he *httpx.Error
	switch {
	case err == nil:
		return websocket.StatusNormalClosure, ""
	case errors.As(err, &he) && he.StatusCode == http.StatusBadRequest:
		return websocket.StatusInvalidFramePayloadData, reason(he.Message)
	}
	return websocket.StatusInternalError, "internal error"
}

// reason fits s into a close frame's reason: at most 123 bytes, cut on
// a rune boundary.
func reason(s string) string {
	const most = 123
	if len(s) <= most {
		return s
	}
	s = s[:most]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// sameOrigin reports whether r comes from a page of its own host, or
// from no page at all (no Origin header: not a browser).
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// headerHas reports whether header name holds token, in a comma list,
// case-insensitively.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h[name] {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
