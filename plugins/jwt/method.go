package jwt

import (
	"errors"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
)

// Method returns the plugin as one way into a context that auth.AnyOf
// guards: the request carries its credential when its authorization
// header holds the plugin's scheme followed by a token shaped as a JWT
// (three dot-separated parts), so that a static bearer token of another
// method is not taken for one; to turns the verified claims into the
// context's identity T (an error from to is the answer). The checks,
// the answers, Scopes and the key set's fetching are the plugin's.
// Optional is refused: AnyOf decides what a request without a
// credential gets. Invalid options make Register (and Ready) fail.
func Method[C, T any](to func(*Claims[C]) (T, error), opts ...Option) auth.Method[T] {
	g, err := newGuard[C](opts)
	switch {
	case err != nil:
	case to == nil:
		err = errors.New("jwt.Method: nil function")
	case g.optional:
		err = errors.New("jwt.Method does not take jwt.Optional: auth.AnyOf answers a request without a credential")
	}
	return &method[C, T]{g: g, to: to, err: err}
}

// method is the plugin as an auth.Method.
type method[C, T any] struct {
	g   *guard[C]
	to  func(*Claims[C]) (T, error)
	err error
}

// Guard is an auth guard named GuardName.
func (m *method[C, T]) Guard() app.Guard { return app.Guard{Kind: app.GuardAuth, Name: GuardName} }

// Security is the plugin's scheme.
func (m *method[C, T]) Security() app.SecurityScheme { return securityScheme(m.g.c) }

// Setup reads the routes' Scopes and fetches the key set from Ready to
// Close.
func (m *method[C, T]) Setup(s *app.Server) error {
	if m.err != nil {
		return m.err
	}
	return m.g.setup(s)
}

// Present reports whether req's authorization header holds a token of
// the plugin's scheme shaped as a JWT.
func (m *method[C, T]) Present(req *httpx.Request) bool {
	for _, h := range req.Raw().Header["Authorization"] {
		p := m.g.prefix
		if len(h) > len(p) && strings.EqualFold(h[:len(p)], p) && strings.Count(strings.TrimSpace(h[len(p):]), ".") == 2 {
			return true
		}
	}
	return false
}

// Authenticate verifies the token, then hands its claims to the
// function.
func (m *method[C, T]) Authenticate(req *httpx.Request, rep *httpx.Reply) (T, error) {
	c, err := m.g.verify(req, rep)
	if err != nil {
		var zero T
		return zero, err
	}
	return m.to(c)
}
