package bearer

import (
	"errors"
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
)

// Method returns bearer-auth as one way into a context that auth.AnyOf
// guards: the request carries its credential when it has the
// authorization header (or the Header given), whatever its scheme, and
// to turns the Identity of the key that matched into the context's
// identity T (an error from to answers 500). Its answers are the
// plugin's, Scopes included. ExposeIdentity and Manual are refused: the
// identity is AnyOf's request value. Invalid options make Register (and
// Ready) fail.
//
// Put a JWT method before it when both read the authorization header:
// the first method whose credential is present decides, and this one
// takes any token.
func Method[T any](to func(Identity) (T, error), opts ...Option) auth.Method[T] {
	c, err := newConfig(opts)
	switch {
	case err != nil:
	case to == nil:
		err = errors.New("bearer.Method: nil function")
	case c.identity != "" || !c.addHook:
		err = errors.New("bearer.Method takes neither ExposeIdentity nor Manual: auth.AnyOf provides the identity")
	}
	m := &method[T]{to: to, err: err, name: "Authorization"}
	if err == nil {
		m.v = newVerifier(c)
		if c.header != "" {
			m.name = http.CanonicalHeaderKey(c.header)
		}
	}
	return m
}

// method is bearer-auth as an auth.Method.
type method[T any] struct {
	v    *Verifier
	to   func(Identity) (T, error)
	name string // the header the credential travels in, canonical
	err  error
}

// Guard is the verifier's guard ("bearer", or the Header's name).
func (m *method[T]) Guard() app.Guard {
	if m.v == nil {
		return app.Guard{Kind: app.GuardAuth, Name: "bearer"}
	}
	return m.v.Guard()
}

// Security is the plugin's scheme.
func (m *method[T]) Security() app.SecurityScheme {
	if m.v == nil {
		return app.SecurityScheme{}
	}
	return m.v.security
}

// Setup reads the routes' Scopes.
func (m *method[T]) Setup(s *app.Server) error {
	if m.err != nil {
		return m.err
	}
	if err := s.OnRoute(m.v.readScopes); err != nil {
		return err
	}
	return s.OnReady(m.v.rules.Publish)
}

// Present reports whether req has the header.
func (m *method[T]) Present(req *httpx.Request) bool {
	return len(req.Raw().Header[m.name]) > 0
}

// Authenticate checks the key, and answers a refusal as the plugin's
// hook does.
func (m *method[T]) Authenticate(req *httpx.Request, rep *httpx.Reply) (T, error) {
	var zero T
	id, failure, _ := m.v.refuseFor(req, rep)
	if failure != nil {
		return zero, m.v.answer(rep, failure)
	}
	return m.to(id)
}
