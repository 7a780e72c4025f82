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

	"github.com/burrow-go/burrow/httpx"
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

	// Pre-built answers, so a rejection costs no encoding.
	errMissing, errInvalid, errMultiple, errInternal *httpx.Error
	missing, invalid, multiple, internal             json.RawMessage
	challenge, invalidToken, badRequest              []string
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
	return &Verifier{
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
	failure, cause = v.check(req)
	if failure != nil {
		v.log(req, failure, cause)
		if challenge := v.challengeFor(failure); challenge != nil {
			rep.Header()["Www-Authenticate"] = challenge
		}
	}
	return failure, cause
}

// check returns nil when req may pass, or the failure and, for an Auth
// error, its cause.
func (v *Verifier) check(req *httpx.Request) (failure *httpx.Error, cause error) {
	values := req.Raw().Header["Authorization"]
	switch {
	case len(values) > 1:
		return v.errMultiple, nil
	case len(values) == 0 || values[0] == "":
		return v.errMissing, nil
	}
	h := values[0]
	if len(h) < len(v.prefix) || !v.schemeMatches(h[:len(v.prefix)]) {
		return v.errInvalid, nil
	}
	key := strings.TrimSpace(h[len(v.prefix):])
	if key == "" {
		return v.errInvalid, nil
	}
	index := -1
	if v.auth != nil {
		ok, err := v.auth(key, req)
		if err != nil {
			return v.errInternal, err
		}
		if !ok {
			return v.errInvalid, nil
		}
	} else if index = v.match(key); index < 0 {
		return v.errInvalid, nil
	}
	if v.identity != "" {
		if err := req.SetDecorator(v.identity, v.identities[index+1]); err != nil {
			return v.errInternal, err
		}
	}
	return nil, nil
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
