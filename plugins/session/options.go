package session

import (
	"errors"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/internal/token"
)

// Option configures the plugin.
type Option func(*manager)

func (m *manager) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// Cookie names the session cookie (default "session").
func Cookie(name string) Option {
	return func(m *manager) {
		if !token.Valid(name) {
			m.fail(errors.New("session.Cookie: invalid cookie name " + name))
			return
		}
		m.name = name
	}
}

// Path sets the cookie's Path (default "/").
func Path(path string) Option { return func(m *manager) { m.path = path } }

// Domain sets the cookie's Domain (default none: the host that set it
// only).
func Domain(domain string) Option { return func(m *manager) { m.domain = domain } }

// SameSite sets the cookie's SameSite attribute (default Lax).
func SameSite(mode http.SameSite) Option { return func(m *manager) { m.sameSite = mode } }

// Insecure lets the cookie travel over plain HTTP. By default it is
// Secure; browsers accept such cookies from http://localhost, so this is
// for a development server reached by another name.
func Insecure() Option { return func(m *manager) { m.insecure = true } }

// Persistent gives the cookie a Max-Age, the session's remaining time, so
// it outlives the browser's window; by default it is a browser-session
// cookie.
func Persistent() Option { return func(m *manager) { m.persistent = true } }

// IdleTimeout ends a session this long after its last request (default
// 30 minutes).
func IdleTimeout(d time.Duration) Option { return func(m *manager) { m.idle = d } }

// AbsoluteTimeout ends a session this long after it began or was last
// regenerated, however much it is used (default 24 hours).
func AbsoluteTimeout(d time.Duration) Option { return func(m *manager) { m.absolute = d } }

// clock replaces time.Now, for tests.
func clock(now func() time.Time) Option { return func(m *manager) { m.now = now } }
