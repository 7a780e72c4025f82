package bearer

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/token"
)

// Option configures the plugin and New. An invalid option makes New
// return an error, and Register (through Ready) fail naming the plugin.
type Option func(*config)

// AuthFunc decides whether key (the credential after the scheme, trimmed)
// is accepted for req. An error answers 500 with a generic body; its
// message is logged, never sent.
type AuthFunc func(key string, req *httpx.Request) (bool, error)

type config struct {
	keys        [][sha256.Size]byte
	auth        AuthFunc
	scheme      string
	strict      bool
	addHook     bool
	contentType string
	errResponse func(error) any
	identity    string
	logLevel    zapcore.Level
	err         error
	keysGiven   bool
	store       KeyStore
	header      string
}

// fail records err unless an earlier option failed: New reports the
// first, as one sentence.
func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Keys adds accepted keys. Empty keys are refused. Keys are kept only as
// SHA-256 sums.
func Keys(keys ...string) Option {
	return func(c *config) {
		c.keysGiven = true
		for _, k := range keys {
			if k == "" {
				c.fail(errors.New("bearer.Keys: empty key"))
				continue
			}
			c.keys = append(c.keys, sha256.Sum256([]byte(k)))
		}
	}
}

// Auth replaces Keys with fn, for keys kept elsewhere (a database, a
// token service). It must not be combined with Keys.
func Auth(fn AuthFunc) Option {
	return func(c *config) {
		if fn == nil {
			c.fail(errors.New("bearer.Auth: nil function"))
			return
		}
		c.auth = fn
	}
}

// Scheme sets the authorization scheme (default "Bearer"). It must be an
// RFC 9110 token, as every auth-scheme is: letters, digits and
// !#$%&'*+-.^_`|~; anything else is a name no client can send.
func Scheme(name string) Option {
	return func(c *config) {
		if !token.Valid(name) {
			c.fail(fmt.Errorf("bearer.Scheme: invalid scheme %q", name))
			return
		}
		c.scheme = name
	}
}

// CaseSensitive makes the scheme match case-sensitively, as
// @fastify/bearer-auth does by default ("rfc6750" compliance). The
// default is case-insensitive, as RFC 9110 §11.1 says of every
// authentication scheme.
func CaseSensitive() Option { return func(c *config) { c.strict = true } }

// Strict(true) is CaseSensitive(); Strict(false) is the default.
//
// Deprecated: use CaseSensitive. A bool option reads as "strict: false"
// at the call site.
func Strict(on bool) Option { return func(c *config) { c.strict = on } }

// Manual makes Plugin install no hook: it provides the *Verifier as a
// service of the registering context instead, and its Verify method is
// attached to the routes to protect, e.g. app.WithHook(app.OnRequest,
// v.Verify). Failures then go through the error handler as *httpx.Error
// values with codes FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER and
// FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER. Without it (the default)
// Plugin guards every route of the context with an onRequest hook.
func Manual() Option { return func(c *config) { c.addHook = false } }

// ContentType sets the Content-Type of the error answers of the hook
// (default "application/json; charset=utf-8").
func ContentType(ct string) Option {
	return func(c *config) {
		if strings.TrimSpace(ct) == "" || strings.ContainsAny(ct, "\r\n") {
			c.fail(fmt.Errorf("bearer.ContentType: invalid content type %q", ct))
			return
		}
		c.contentType = ct
	}
}

// ErrorResponse builds the body of the hook's 401 and 400 answers from the
// failure, an *httpx.Error whose Message is the reason (default
// {"error":"<message>"}). The value is sent as Reply.Send sends it.
func ErrorResponse(fn func(err error) any) Option {
	return func(c *config) {
		if fn == nil {
			c.fail(errors.New("bearer.ErrorResponse: nil function"))
			return
		}
		c.errResponse = fn
	}
}

// ExposeIdentity declares a request decorator called name, of type Identity, in
// the context the plugin guards; after a successful check it holds which
// key matched, so handlers can tell callers apart without seeing keys.
// Only Plugin can declare it: New refuses this option
// (ErrIdentityNeedsPlugin).
func ExposeIdentity(name string) Option {
	return func(c *config) {
		if name == "" {
			c.fail(errors.New("bearer.ExposeIdentity: empty decorator name"))
			return
		}
		c.identity = name
	}
}

// LogLevel sets the level refused requests are logged at (default debug,
// like every other 4xx Burrow answers; @fastify/bearer-auth uses error).
// A refusal is the client's mistake, not the server's, and clients choose
// how many to make: at info, the line costs the server more than the
// refusal itself, and at error a production logger adds a stack to each.
// The access log still records every refused request with its status. An
// Auth function's error is a server failure and is logged at error
// whatever this says. Keys are never logged.
func LogLevel(l zapcore.Level) Option {
	return func(c *config) {
		if l < zapcore.DebugLevel || l > zapcore.FatalLevel {
			c.fail(fmt.Errorf("bearer.LogLevel: invalid level %d", l))
			return
		}
		c.logLevel = l
	}
}

func newConfig(opts []Option) (*config, error) {
	c := &config{scheme: "Bearer", addHook: true, logLevel: zapcore.DebugLevel,
		contentType: "application/json; charset=utf-8"}
	for _, o := range opts {
		o(c)
	}
	switch {
	case c.err != nil:
		return nil, c.err
	case c.auth != nil && c.keysGiven, c.store != nil && (c.auth != nil || c.keysGiven):
		return nil, errors.New("bearer.Keys, bearer.Auth and bearer.Store are exclusive")
	case c.auth == nil && c.store == nil && len(c.keys) == 0:
		return nil, ErrNoKeys
	}
	return c, nil
}
