// Package bearer is Burrow's bearer-auth plugin: an onRequest hook that
// lets a request through only with "authorization: Bearer <key>" for one
// of the configured keys.
//
// The plugin is wrapped, so its hook lands in the context that registers
// it and guards that context's routes and its descendants', and nothing
// else:
//
//	s.Register(func(s *app.Server) error {
//		s.Register(bearer.Plugin(bearer.Keys("k1", "k2")))
//		return s.Get("/private", handler)
//	})
//
// Responses follow @fastify/bearer-auth (≥ 9.2.1): a missing or empty
// header is 401 {"error":"missing authorization header"}; any other
// failure is 401 {"error":"invalid authorization header"}. Unlike it, and
// per RFC 6750 and RFC 9110, every 401 carries "www-authenticate: Bearer"
// (with error="invalid_token" for a wrong key), the scheme name matches
// case-insensitively, and a request with more than one authorization
// header is 400 invalid_request.
package bearer

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// PluginName is the name the plugin registers under.
const PluginName = "bearer-auth"

// Messages of the error bodies.
const (
	MsgMissing  = "missing authorization header"
	MsgInvalid  = "invalid authorization header"
	MsgMultiple = "multiple authorization headers"
)

// ErrNoKeys is returned (through Ready) when the plugin has no key to
// accept: a server that rejects every request is a configuration mistake.
var ErrNoKeys = errors.New("bearer: no keys configured")

// Option configures the plugin.
type Option func(*config)

type config struct {
	keys     [][sha256.Size]byte
	scheme   string
	logLevel zapcore.Level
	err      error
}

// Keys adds accepted keys. Empty keys are refused.
func Keys(keys ...string) Option {
	return func(c *config) {
		for _, k := range keys {
			if k == "" {
				c.err = errors.Join(c.err, errors.New("bearer: empty key"))
				continue
			}
			c.keys = append(c.keys, sha256.Sum256([]byte(k)))
		}
	}
}

// Scheme sets the authorization scheme (default "Bearer"), matched without
// regard to case.
func Scheme(name string) Option {
	return func(c *config) {
		if name == "" || strings.ContainsAny(name, " \t") {
			c.err = errors.Join(c.err, fmt.Errorf("bearer: invalid scheme %q", name))
			return
		}
		c.scheme = name
	}
}

// LogLevel sets the level verification failures are logged at (default
// error, as @fastify/bearer-auth). Keys are never logged.
func LogLevel(l zapcore.Level) Option { return func(c *config) { c.logLevel = l } }

// Plugin returns the wrapped bearer-auth plugin. Invalid options make Ready
// fail with an error naming the plugin and its context.
func Plugin(opts ...Option) *app.Plugin {
	c := &config{scheme: "Bearer", logLevel: zapcore.ErrorLevel}
	for _, o := range opts {
		o(c)
	}
	return app.Wrap(func(s *app.Server) error {
		if c.err != nil {
			return c.err
		}
		if len(c.keys) == 0 {
			return ErrNoKeys
		}
		return s.AddHook(app.OnRequest, newVerifier(c).verify)
	}, app.PluginName(PluginName))
}

// verifier holds the pre-built parts of the hook, so a request costs one
// hash and len(keys) comparisons.
type verifier struct {
	keys     [][sha256.Size]byte
	prefix   string
	logLevel zapcore.Level

	missing, invalid, multiple          json.RawMessage
	challenge, invalidToken, badRequest []string
}

func newVerifier(c *config) *verifier {
	body := func(msg string) json.RawMessage {
		b, _ := json.Marshal(struct {
			Error string `json:"error"`
		}{msg})
		return b
	}
	return &verifier{
		keys:         c.keys,
		prefix:       c.scheme + " ",
		logLevel:     c.logLevel,
		missing:      body(MsgMissing),
		invalid:      body(MsgInvalid),
		multiple:     body(MsgMultiple),
		challenge:    []string{c.scheme},
		invalidToken: []string{c.scheme + ` error="invalid_token"`},
		badRequest:   []string{c.scheme + ` error="invalid_request"`},
	}
}

// verify is the onRequest hook.
func (v *verifier) verify(req *httpx.Request, rep *httpx.Reply) error {
	values := req.Raw().Header["Authorization"]
	switch {
	case len(values) > 1:
		return v.reject(req, rep, http.StatusBadRequest, v.badRequest, v.multiple, MsgMultiple)
	case len(values) == 0 || values[0] == "":
		return v.reject(req, rep, http.StatusUnauthorized, v.challenge, v.missing, MsgMissing)
	}
	h := values[0]
	if len(h) < len(v.prefix) || !strings.EqualFold(h[:len(v.prefix)], v.prefix) {
		return v.reject(req, rep, http.StatusUnauthorized, v.invalidToken, v.invalid, MsgInvalid)
	}
	if !v.match(strings.TrimSpace(h[len(v.prefix):])) {
		return v.reject(req, rep, http.StatusUnauthorized, v.invalidToken, v.invalid, MsgInvalid)
	}
	return nil
}

// match compares key with every configured key in constant time. Both
// sides are hashed first, so the comparison does not stop early on a
// length difference, and every key is compared whatever matched before.
func (v *verifier) match(key string) bool {
	if key == "" {
		return false
	}
	sum := sha256.Sum256([]byte(key))
	found := 0
	for i := range v.keys {
		found |= subtle.ConstantTimeCompare(sum[:], v.keys[i][:])
	}
	return found == 1
}

func (v *verifier) reject(req *httpx.Request, rep *httpx.Reply, status int, challenge []string, body json.RawMessage, msg string) error {
	if ce := req.Log().Check(v.logLevel, "unauthorized: "+msg); ce != nil {
		ce.Write(zap.Int("statusCode", status))
	}
	rep.Header()["Www-Authenticate"] = challenge
	return rep.Code(status).Send(body)
}
