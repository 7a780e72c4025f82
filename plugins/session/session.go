// Package session keeps a browser's session between requests: a typed
// value, loaded from a store the first time a request needs it, saved
// only when changed, carried by a cookie.
//
// The plugin is wrapped: registered in a context, it provides the
// request value *Session[T] there and in the context's descendants, and
// nowhere else. A handler or hook of another context that asks for it
// stops the server at Ready, as any dependency it cannot see.
//
//	type user struct{ Name string }
//	s.Register(session.Plugin[user](session.NewMemoryStore(), session.Cookie("sid")))
//
//	type in struct {
//		app.In
//		Session *session.Session[user]
//	}
//	app.Get(s, "/me", func(ctx context.Context, in in) (user, error) {
//		u, ok := in.Session.Get()
//		if !ok {
//			return user{}, httpx.NewError(401, "", "log in first")
//		}
//		return u, nil
//	})
//
// A session is saved, and its cookie written, when the reply is sent
// through Burrow (a typed route's result, Reply.Send, an error answer)
// with a status below 400: a request that fails changes nothing. A
// handler that writes its reply itself (a stream, Reply.Raw) cannot
// change the session.
//
// Log-in calls Regenerate, so the session gets a new id and the id the
// browser held before (which another party may have planted) is no
// longer valid: no session fixation. Log-out calls Destroy. A session
// ends after IdleTimeout without a request and AbsoluteTimeout after it
// began, whatever its use; a session in use is renewed (saved again with
// a new expiry) once half its idle time has passed, not on every
// request.
package session

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cookie"
)

// PluginName is the name the plugin registers under.
const PluginName = "session"

// ErrNotFound is what a Store's Load returns for a token it does not
// know, or whose session expired.
var ErrNotFound = errors.New("session: not found")

// Store keeps sessions. The token is what the cookie carries: a
// server-side store (memory, Redis) makes it a random id and keeps the
// data; the cookie store seals the data into it. Every method is called
// with the request's context and must be safe for concurrent use.
type Store interface {
	// Load returns the data saved under token, or ErrNotFound.
	Load(ctx context.Context, token string) ([]byte, error)
	// Save keeps data for ttl under a new token when token is "", and
	// returns the token the cookie carries from now on. Given a token, it
	// replaces that session's data only while the session exists, and
	// returns ErrNotFound otherwise: a request that loaded a session
	// before another ended it (a log-out) must not bring it back.
	Save(ctx context.Context, token string, data []byte, ttl time.Duration) (string, error)
	// Delete forgets token, and reports whether a live session was kept
	// under it: false for a token it does not know or whose session
	// expired, which is no error. The test and the removal are one step,
	// so that of two requests deleting one token only one sees true:
	// Regenerate moves a session to a new token only when its Delete
	// does, so that a log-out another request made meanwhile stands. A
	// store that cannot revoke a session (the cookie store) reports true.
	Delete(ctx context.Context, token string) (bool, error)
}

// Session is one browser's session, as a request sees it. It is not safe
// for use by several goroutines of one request at once; concurrent
// requests of one browser each have their own, and the last to save
// wins.
type Session[T any] struct {
	m       *manager
	token   string // the token the request came with, if its session loaded
	rec     record[T]
	loaded  bool // a live session was found for the request's cookie
	changed bool
	regen   bool // a new token at the save, if the session still lives
	restart bool // a Set after Destroy: a new session, the old token forgotten
	destroy bool
}

// record is what a store keeps: the data and the two instants expiry is
// measured from, in Unix seconds.
type record[T any] struct {
	Data    T      `json:"d"`
	Created int64  `json:"c"`
	Seen    int64  `json:"s"`
	Cookie  string `json:"n"` // the cookie it was made for: another's is refused
}

// Get returns the session's data, and whether there is a session: false
// for a browser with no cookie, an unknown or expired one, or after
// Destroy.
func (s *Session[T]) Get() (T, bool) {
	if s.destroy || !s.loaded && !s.changed {
		var zero T
		return zero, false
	}
	return s.rec.Data, true
}

// Set replaces the session's data, starting a session if there is none.
func (s *Session[T]) Set(v T) {
	if s.destroy || !s.loaded && !s.changed {
		now := s.m.now().Unix()
		s.rec = record[T]{Created: now, Seen: now, Cookie: s.m.name}
		s.destroy = false
		s.restart = s.token != ""
	}
	s.rec.Data = v
	s.changed = true
}

// Regenerate gives the session a new token when it is saved and makes
// the old one invalid: call it when the privileges of the session
// change, at log-in above all. It starts the absolute time-out anew.
// Without a session it does nothing: the Set that follows starts one,
// under a token of its own. When another request ended the session
// since this one loaded it (a log-out), no new token is given: the
// log-out stands, and the request's changes are dropped.
func (s *Session[T]) Regenerate() {
	if s.destroy || !s.loaded && !s.changed {
		return // no session: the next Set starts one, with a new token
	}
	s.regen = true
	s.changed = true
	s.rec.Created = s.m.now().Unix()
}

// Destroy ends the session: its token is forgotten by the store and its
// cookie cleared. A Set after it starts a new session.
func (s *Session[T]) Destroy() {
	s.destroy = true
	s.changed = false
}

// commit saves or deletes the session and writes its cookie, as the
// request's reply is sent.
func (s *Session[T]) commit(ctx context.Context, h http.Header) error {
	m := s.m
	if s.destroy {
		if s.token != "" {
			if _, err := m.store.Delete(ctx, s.token); err != nil {
				return fmt.Errorf("session: deleting: %w", err)
			}
			h.Add("Set-Cookie", m.expired)
			noStore(h)
		}
		return nil
	}
	now := m.now()
	renew := s.loaded && now.Unix()-s.rec.Seen >= int64(m.idle/2/time.Second)
	if !s.changed && !renew {
		return nil
	}
	s.rec.Seen = now.Unix()
	ttl := min(m.idle, time.Unix(s.rec.Created, 0).Add(m.absolute).Sub(now))
	if ttl <= 0 {
		return nil // ended while in use: the next request finds none
	}
	data, err := json.Marshal(&s.rec)
	if err != nil {
		return fmt.Errorf("session: encoding %T: %w", s.rec.Data, err)
	}
	token := s.token
	if (s.regen || s.restart) && token != "" {
		lived, err := m.store.Delete(ctx, token)
		if err != nil {
			return fmt.Errorf("session: deleting the old token: %w", err)
		}
		if !lived && !s.restart {
			// Ended by another request (a log-out) since this one loaded
			// it: a new token would bring it back with its data.
			return nil
		}
		token = ""
	}
	next, err := m.store.Save(ctx, token, data, ttl)
	if errors.Is(err, ErrNotFound) {
		// Ended by another request (a log-out) since this one loaded it:
		// the end stands, and the change is dropped.
		return nil
	}
	if err != nil {
		return fmt.Errorf("session: saving: %w", err)
	}
	if next != s.token || m.persistent {
		c := m.cookie(next) // #nosec G124 -- made by manager.cookie
		if m.persistent {
			c.MaxAge = int(ttl / time.Second)
		}
		h.Add("Set-Cookie", c.String())
		noStore(h)
	}
	return nil
}

// load reads the request's cookie and its session, lazily: the first
// time the request needs the session.
func (s *Session[T]) load(req *httpx.Request) error {
	m := s.m
	c, err := req.Raw().Cookie(m.name)
	if err != nil || c.Value == "" || len(c.Value) > maxTokenLen {
		return nil // no session yet
	}
	data, err := m.store.Load(req.Context(), c.Value)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session: loading: %w", err)
	}
	var rec record[T]
	if json.Unmarshal(data, &rec) != nil || rec.Cookie != m.name {
		// Written by another version of the data type, or for another
		// cookie (another registration sharing the store or the key):
		// no session here.
		return nil
	}
	now := m.now()
	if now.Sub(time.Unix(rec.Seen, 0)) >= m.idle || now.Sub(time.Unix(rec.Created, 0)) >= m.absolute {
		return nil
	}
	s.token, s.rec, s.loaded = c.Value, rec, true
	return nil
}

// noStore keeps an answer that sets the session cookie out of every
// cache: a shared cache that stored it would hand one user's session to
// the next. It replaces what the route set.
func noStore(h http.Header) { h["Cache-Control"] = noStoreValue }

var noStoreValue = []string{"no-store"}

// maxTokenLen is the longest cookie value looked up: a browser keeps
// about 4 KiB per cookie.
const maxTokenLen = 4096

// commitFunc is a request's session as the plugin's send hook sees it,
// whatever its data type: its commit method.
type commitFunc func(ctx context.Context, h http.Header) error

// NewToken returns a random token for a server-side store: 32 bytes from
// crypto/rand, in unpadded base64url.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// manager is one registration of the plugin: its store and options.
type manager struct {
	store      Store
	name       string
	path       string
	domain     string
	insecure   bool
	sameSite   http.SameSite
	persistent bool
	idle       time.Duration
	absolute   time.Duration
	now        func() time.Time
	expired    string // the Set-Cookie value that clears the cookie
	err        error
}

func (m *manager) cookie(value string) *http.Cookie {
	c := cookie.New(m.name, value) // #nosec G124 -- HttpOnly always; Secure unless Insecure, SameSite Lax unless set
	c.Path, c.Domain, c.Secure, c.SameSite = m.path, m.domain, !m.insecure, m.sameSite
	return c
}

// newManager is the manager of store and opts; its err says what is
// wrong with them.
func newManager(store Store, opts []Option) *manager {
	m := &manager{
		store: store, name: "session", path: "/", sameSite: http.SameSiteLaxMode,
		idle: 30 * time.Minute, absolute: 24 * time.Hour, now: time.Now,
	}
	for _, o := range opts {
		o(m)
	}
	if store == nil && m.err == nil {
		m.err = errors.New("session.Plugin: nil store")
	}
	if m.idle <= 0 || m.absolute <= 0 {
		m.err = fmt.Errorf("session.IdleTimeout and session.AbsoluteTimeout take positive durations, not %v and %v", m.idle, m.absolute)
	}
	exp := m.cookie("") // #nosec G124 -- made by manager.cookie
	exp.MaxAge = -1
	m.expired = exp.String()
	return m
}

// decorator is the request decorator through which the send hook finds
// the request's session, when one was built.
const decorator = "burrow.session"

// Plugin returns the wrapped plugin that provides *Session[T] in the
// context registering it, kept in store. An invalid option makes
// Register (and Ready) fail with a *app.PluginError naming session.
func Plugin[T any](store Store, opts ...Option) *app.Plugin {
	m := newManager(store, opts)

	type in struct {
		app.In
		Req *httpx.Request
	}
	build := func(_ context.Context, in in) (*Session[T], func(bool) error, error) {
		s := &Session[T]{m: m}
		if err := s.load(in.Req); err != nil {
			return nil, nil, err
		}
		if err := in.Req.SetDecorator(decorator, commitFunc(s.commit)); err != nil {
			return nil, nil, err
		}
		return s, nil, nil
	}
	return app.Wrap(func(s *app.Server) error {
		if err := s.DecorateRequest(decorator, commitFunc(nil)); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(build)); err != nil {
			return err
		}
		return s.AddHook(app.OnSend, app.OnSendFunc(func(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error) {
			v, _ := req.Decorator(decorator)
			commit, _ := v.(commitFunc)
			if commit == nil || rep.Status() >= 400 {
				return body, nil
			}
			return body, commit(req.Context(), rep.Header())
		}))
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return m.err }))
}
