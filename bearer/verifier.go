package bearer

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/scopetoken"
)

// Verifier checks authorization headers. Plugin installs its check as an
// onRequest hook; with Manual, or when built with New, attach
// Verify to the routes that need it.
type Verifier struct {
	keys        [][sha256.Size]byte
	auth        AuthFunc
	prefix      string
	strict      bool
	addHook     bool
	identity    string
	identities  []any // the identity decorator's values: [0] for an Auth function's, [1+i] for key i
	logLevel    zapcore.Level
	contentType []string
	errResponse func(error) any
	store       KeyStore
	header      string             // the header the key is read from; "" for Authorization
	security    app.SecurityScheme // declared where the hook lands

	rules scopetoken.Routes[rule] // the routes' Scopes

	// Pre-built answers, so a rejection costs no encoding.
	errMissing, errInvalid, errMultiple, errInternal, errScope *httpx.Error
	missing, invalid, multiple, internal, scope                json.RawMessage
	challenge, invalidToken, badRequest                        []string
}

// New checks opts and returns a Verifier. It refuses ExposeIdentity:
// only Plugin can declare the decorator, and Verify cannot fill one that
// nothing declared (see ErrIdentityNeedsPlugin).
func New(opts ...Option) (*Verifier, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if c.identity != "" {
		return nil, fmt.Errorf("%w, which declares the request decorator %q; register bearer.Plugin(…, bearer.Manual()) "+
			"and take the *bearer.Verifier it provides where you attach Verify", ErrIdentityNeedsPlugin, c.identity)
	}
	return newVerifier(c), nil
}

// newVerifier builds the Verifier of a checked configuration.
func newVerifier(c *config) *Verifier {
	body := func(msg string) json.RawMessage {
		b, _ := json.Marshal(struct {
			Error string `json:"error"`
		}{msg})
		return b
	}
	var identities []any
	if c.identity != "" {
		// Boxed once here, so setting the decorator allocates nothing per
		// request.
		identities = make([]any, 1+len(c.keys))
		for i := range identities {
			identities[i] = Identity{Index: i - 1, Authenticated: true}
		}
	}
	security := app.SecurityScheme{Name: schemeName(strings.ToLower(c.scheme)), Type: "http", Scheme: strings.ToLower(c.scheme)}
	if c.header != "" {
		security = app.SecurityScheme{Name: schemeName(strings.ToLower(c.header)), Type: "apiKey", In: "header",
			ParamName: http.CanonicalHeaderKey(c.header)}
	}
	return &Verifier{
		store:        c.store,
		header:       http.CanonicalHeaderKey(c.header),
		security:     security,
		errScope:     httpx.NewError(http.StatusForbidden, CodeScope, MsgScope),
		scope:        body(MsgScope),
		identities:   identities,
		keys:         c.keys,
		auth:         c.auth,
		prefix:       c.scheme + " ",
		strict:       c.strict,
		addHook:      c.addHook,
		identity:     c.identity,
		logLevel:     c.logLevel,
		contentType:  []string{c.contentType},
		errResponse:  c.errResponse,
		errMissing:   httpx.NewError(http.StatusUnauthorized, CodeMissing, MsgMissing),
		errInvalid:   httpx.NewError(http.StatusUnauthorized, CodeInvalid, MsgInvalid),
		errMultiple:  httpx.NewError(http.StatusBadRequest, CodeMultiple, MsgMultiple),
		errInternal:  httpx.NewError(http.StatusInternalServerError, CodeInternal, MsgInternal),
		missing:      body(MsgMissing),
		invalid:      body(MsgInvalid),
		multiple:     body(MsgMultiple),
		internal:     body(MsgInternal),
		challenge:    []string{c.scheme},
		invalidToken: []string{c.scheme + ` error="invalid_token"`},
		badRequest:   []string{c.scheme + ` error="invalid_request"`},
	}
}

// Verify checks req's authorization header. Use it as an onRequest or
// preHandler hook: on failure it sets www-authenticate and returns an
// *httpx.Error (401 or 400, codes CodeMissing, CodeInvalid, CodeMultiple;
// 500 CodeInternal when the Auth function fails), which the route's error
// handler answers.
func (v *Verifier) Verify(req *httpx.Request, rep *httpx.Reply) error {
	failure, cause := v.refuse(req, rep)
	switch {
	case failure == nil:
		return nil
	case cause != nil:
		return &httpx.Error{StatusCode: failure.StatusCode, Code: failure.Code, Message: failure.Message, Err: cause}
	}
	return failure
}

// authenticate is the onRequest hook Plugin installs: it answers failures
// itself.
func (v *Verifier) authenticate(req *httpx.Request, rep *httpx.Reply) error {
	failure, _ := v.refuse(req, rep)
	if failure == nil {
		return nil
	}
	return v.answer(rep, failure)
}

// answer sends the plugin's answer to failure.
func (v *Verifier) answer(rep *httpx.Reply, failure *httpx.Error) error {
	if failure == v.errScope {
		rep.Header()["Content-Type"] = v.contentType
		rep.Code(failure.StatusCode)
		if v.errResponse != nil {
			return rep.Send(v.errResponse(failure))
		}
		return rep.Send(v.scope)
	}
	rep.Header()["Content-Type"] = v.contentType
	rep.Code(failure.StatusCode)
	if v.errResponse != nil {
		return rep.Send(v.errResponse(failure))
	}
	switch failure {
	case v.errMissing:
		return rep.Send(v.missing)
	case v.errMultiple:
		return rep.Send(v.multiple)
	case v.errInternal:
		return rep.Send(v.internal)
	}
	return rep.Send(v.invalid)
}

// refuse runs the check; on failure it logs the reason and sets the
// challenge header.
func (v *Verifier) refuse(req *httpx.Request, rep *httpx.Reply) (failure *httpx.Error, cause error) {
	_, failure, cause = v.refuseFor(req, rep)
	return failure, cause
}

// refuseFor is refuse, which also returns who the key is when it passes.
func (v *Verifier) refuseFor(req *httpx.Request, rep *httpx.Reply) (id Identity, failure *httpx.Error, cause error) {
	var r *rule
	id, failure, r, cause = v.check(req)
	if failure != nil {
		v.log(req, failure, cause)
		challenge := v.challengeFor(failure)
		if r != nil {
			challenge = r.challenge
		}
		if challenge != nil {
			rep.Header()["Www-Authenticate"] = challenge
		}
	}
	return id, failure, cause
}

// check returns who the key is when req may pass, or the failure and,
// for a store or Auth error, its cause; for a key lacking the route's
// scopes, the route's rule. With ExposeIdentity it sets the decorator.
func (v *Verifier) check(req *httpx.Request) (id Identity, failure *httpx.Error, r *rule, cause error) {
	key, failure := v.credential(req)
	if failure != nil {
		return id, failure, nil, nil
	}
	index := -1
	var found *APIKey
	switch {
	case v.store != nil:
		k, err := v.store.Find(req.Context(), HashKey(key))
		if err != nil {
			return id, v.errInternal, nil, err
		}
		if k == nil {
			return id, v.errInvalid, nil, nil
		}
		found = k
		if r = v.rules.Of(req); r != nil && !scopetoken.All(k.Scopes, r.scopes) {
			return id, v.errScope, r, nil
		}
	case v.auth != nil:
		ok, err := v.auth(key, req)
		if err != nil {
			return id, v.errInternal, nil, err
		}
		if !ok {
			return id, v.errInvalid, nil, nil
		}
	default:
		if index = v.match(key); index < 0 {
			return id, v.errInvalid, nil, nil
		}
	}
	id = Identity{Index: index, Authenticated: true}
	if found != nil {
		id = Identity{Index: -1, Authenticated: true, KeyID: found.ID, Scopes: found.Scopes}
	}
	if v.identity != "" {
		boxed := v.identities[index+1] // boxed once: no allocation per request
		if found != nil {
			boxed = id
		}
		if err := req.SetDecorator(v.identity, boxed); err != nil {
			return id, v.errInternal, nil, err
		}
	}
	return id, nil, nil, nil
}

// credential is the key req presents: the value of the plugin's Header,
// or what follows the scheme in its authorization header.
func (v *Verifier) credential(req *httpx.Request) (string, *httpx.Error) {
	name := "Authorization"
	if v.header != "" {
		name = v.header
	}
	values := req.Raw().Header[name]
	switch {
	case len(values) > 1:
		return "", v.errMultiple
	case len(values) == 0 || values[0] == "":
		return "", v.errMissing
	}
	h := values[0]
	if v.header != "" {
		if key := strings.TrimSpace(h); key != "" {
			return key, nil
		}
		return "", v.errInvalid
	}
	if len(h) < len(v.prefix) || !v.schemeMatches(h[:len(v.prefix)]) {
		return "", v.errInvalid
	}
	key := strings.TrimSpace(h[len(v.prefix):])
	if key == "" {
		return "", v.errInvalid
	}
	return key, nil
}

// Guard is the guard the verifier enforces where its hook lands, for
// app.Server.DeclareGuard: an auth guard named as its security scheme
// without "Auth": "bearer", "x-api-key" for Header("X-API-Key").
func (v *Verifier) Guard() app.Guard {
	return app.Guard{Kind: app.GuardAuth, Name: strings.TrimSuffix(v.security.Name, "Auth")}
}

// readScopes is the plugin's OnRoute hook: it takes each route's Scopes,
// so Ready knows a plugin guards it, and keeps it for the requests.
func (v *Verifier) readScopes(spec *app.RouteSpec) error {
	r, ok := app.RouteConfig[*rule](spec)
	if !ok {
		return nil
	}
	if v.store == nil {
		return ErrScopesNeedStore
	}
	if err := scopetoken.Check("bearer.Scopes", r.scopes); err != nil {
		return err
	}
	r.scheme = v.security.Name
	r.challenge = scopetoken.Challenge(v.prefix[:len(v.prefix)-1], r.scopes)
	v.rules.Set(spec, r)
	return nil
}

func (v *Verifier) schemeMatches(prefix string) bool {
	if v.strict {
		return prefix == v.prefix
	}
	return strings.EqualFold(prefix, v.prefix)
}

// match compares key with every configured key in constant time and
// returns the index of the one it equals, or -1. Both sides are hashed
// first, so the comparison does not stop early on a length difference,
// and every key is compared whatever matched before.
func (v *Verifier) match(key string) int {
	sum := sha256.Sum256([]byte(key))
	index := -1
	for i := range v.keys {
		eq := subtle.ConstantTimeCompare(sum[:], v.keys[i][:])
		index = subtle.ConstantTimeSelect(eq, i, index)
	}
	return index
}

func (v *Verifier) challengeFor(failure *httpx.Error) []string {
	switch failure {
	case v.errMissing:
		return v.challenge
	case v.errInvalid:
		return v.invalidToken
	case v.errMultiple:
		return v.badRequest
	}
	return nil
}

// log records a failure: the reason and status, never the header.
func (v *Verifier) log(req *httpx.Request, failure *httpx.Error, cause error) {
	if cause != nil {
		req.Log().Error("bearer auth check failed", zap.Int("statusCode", failure.StatusCode), zap.Error(cause))
		return
	}
	if ce := req.Log().Check(v.logLevel, "unauthorized: "+failure.Message); ce != nil {
		ce.Write(zap.Int("statusCode", failure.StatusCode))
	}
}
