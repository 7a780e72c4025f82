package jwt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jws"
)

// Reasons a token is refused. They go to the debug log, never to the
// client, which learns only that its token is invalid: telling it which
// check failed would help an attacker more than an honest client.
var (
	errMalformed    = errors.New("malformed token")
	errTooLong      = errors.New("token longer than the limit")
	errAlgorithm    = errors.New("algorithm not allowed for the key")
	errNoKey        = errors.New("no key for the token")
	errSignature    = errors.New("wrong signature")
	errExpired      = errors.New("token expired")
	errNoExpiry     = errors.New("token without expiry")
	errNotYet       = errors.New("token not valid yet")
	errIssuer       = errors.New("token of another issuer")
	errAudience     = errors.New("token for another audience")
	errMissingClaim = errors.New("token without a required claim")
)

// verifier checks tokens: the signature with a key the plugin chose
// (never one the token names by jku, x5u or jwk), then the claims.
type verifier struct {
	static   *keySet
	remote   *remote
	issuer   string // the iss required; "" for none
	audience []string
	leeway   time.Duration
	maxSize  int
	require  []string
	now      func() time.Time
}

// header is what the plugin reads of a token's header: the algorithm and
// the key id. Everything else in it is ignored; jku, x5u and jwk in
// particular never choose a key.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// verify checks token and returns its claims and its payload.
func (v *verifier) verify(ctx context.Context, token string) (*registered, []byte, error) {
	if len(token) > v.maxSize {
		return nil, nil, errTooLong
	}
	h64, rest, ok := strings.Cut(token, ".")
	if !ok || h64 == "" || len(h64) > 2048 {
		return nil, nil, errMalformed
	}
	if p, sig, ok := strings.Cut(rest, "."); !ok || p == "" || sig == "" || strings.Contains(sig, ".") {
		return nil, nil, errMalformed
	}
	raw, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return nil, nil, errMalformed
	}
	var h header
	if json.Unmarshal(raw, &h) != nil || h.Alg == "" {
		return nil, nil, errMalformed
	}
	if h.Alg == "none" || strings.EqualFold(h.Alg, "none") {
		return nil, nil, errAlgorithm
	}
	var keys []*key
	if v.remote != nil {
		keys = v.remote.find(ctx, h.Kid)
	} else {
		keys = v.static.all // given, not published: a token's kid does not choose among them
	}
	if len(keys) == 0 {
		return nil, nil, errNoKey
	}
	if h.Kid == "" && v.remote != nil && countAllowing(keys, h.Alg) > 1 {
		// An issuer names its keys; trying a token that names none
		// against each would multiply what one forged token costs.
		return nil, nil, errNoKey
	}
	var payload []byte
	why := errAlgorithm
	for _, k := range keys {
		alg, ok := k.allows(h.Alg)
		if !ok {
			continue
		}
		if payload, err = jws.VerifyCompactFast(k.raw, []byte(token), alg); err == nil {
			break
		}
		why = errSignature
	}
	if payload == nil {
		return nil, nil, why
	}
	var c registered
	if json.Unmarshal(payload, &c) != nil {
		return nil, nil, errMalformed
	}
	if err := v.check(&c, payload); err != nil {
		return nil, nil, err
	}
	return &c, payload, nil
}

// check checks the claims of a token whose signature is good.
func (v *verifier) check(c *registered, payload []byte) error {
	now := v.now()
	switch {
	case c.Expires == nil:
		return errNoExpiry
	case !now.Before(c.Expires.Add(v.leeway)):
		return errExpired
	case c.NotBefore != nil && now.Add(v.leeway).Before(c.NotBefore.Time):
		return errNotYet
	case v.issuer != "" && c.Issuer != v.issuer:
		return errIssuer
	case len(v.audience) > 0 && !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(v.audience, a) }):
		return errAudience
	}
	if len(v.require) > 0 {
		var all map[string]json.RawMessage
		if json.Unmarshal(payload, &all) != nil {
			return errMalformed
		}
		for _, name := range v.require {
			if b, ok := all[name]; !ok || string(b) == "null" {
				return errMissingClaim
			}
		}
	}
	return nil
}

// countAllowing is how many of keys verify alg.
func countAllowing(keys []*key, alg string) int {
	n := 0
	for _, k := range keys {
		if _, ok := k.allows(alg); ok {
			n++
		}
	}
	return n
}
