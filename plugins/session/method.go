package session

import (
	"errors"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
)

// GuardName is the name of the auth guard Method declares.
const GuardName = "session"

// Method returns the session cookie as one way into a context that
// auth.AnyOf guards: the request carries its credential when it has the
// cookie, and to turns the session's data into the context's identity
// T. to gets ok false when the cookie names no live session (ended,
// expired, another's): it returns the refusal then (an *httpx.Error, a
// 401), as it does for data that no longer names a user.
//
// Give it the store and options of the Plugin registered in the same
// context or above (Register fails without one): it reads the session
// as that plugin does, and a session it found is renewed by that
// plugin's send hook as one a handler used. Its guard is a cookie's, so
// AnyOf refuses the unsafe requests it authenticates when another site
// sent them (CSRF).
func Method[S, T any](store Store, to func(data S, ok bool) (T, error), opts ...Option) auth.Method[T] {
	p := &method[S, T]{m: newManager(store, opts), to: to}
	if to == nil && p.m.err == nil {
		p.m.err = errors.New("session.Method: nil function")
	}
	return p
}

// method is the session cookie as an auth.Method.
type method[S, T any] struct {
	m  *manager
	to func(S, bool) (T, error)
}

// Guard is an auth guard named "session", of a cookie.
func (p *method[S, T]) Guard() app.Guard {
	return app.Guard{Kind: app.GuardAuth, Name: GuardName, Cookie: true}
}

// Setup checks that a session plugin is there to renew the sessions.
func (p *method[S, T]) Setup(s *app.Server) error {
	if p.m.err != nil {
		return p.m.err
	}
	if !s.HasDecorator(decorator) {
		return errors.New("session.Method needs session.Plugin registered in the context or an ancestor, to save what it renews")
	}
	return nil
}

// Security is an apiKey scheme of the cookie, "sessionCookie".
func (p *method[S, T]) Security() app.SecurityScheme {
	return app.SecurityScheme{Name: GuardName + "Cookie", Type: "apiKey", In: "cookie", ParamName: p.m.name}
}

// Present reports whether req carries the cookie.
func (p *method[S, T]) Present(req *httpx.Request) bool {
	c, err := req.Raw().Cookie(p.m.name)
	return err == nil && c.Value != ""
}

// Authenticate loads the session and hands its data to the function.
// The session is the request's: the plugin's send hook renews it.
func (p *method[S, T]) Authenticate(req *httpx.Request, _ *httpx.Reply) (T, error) {
	s := &Session[S]{m: p.m}
	if err := s.load(req); err != nil {
		var zero T
		return zero, err
	}
	if err := req.SetDecorator(decorator, commitFunc(s.commit)); err != nil {
		var zero T
		return zero, err
	}
	data, ok := s.Get()
	return p.to(data, ok)
}
