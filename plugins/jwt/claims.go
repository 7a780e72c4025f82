package jwt

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Claims are the verified claims of a request's token, a request value
// of the context that registers the plugin and of its descendants:
// handlers take *jwt.Claims[T] as a parameter. Custom holds the token's
// claims decoded into T (encoding/json), for those the registered ones
// leave out.
type Claims[T any] struct {
	Issuer    string
	Subject   string
	Audience  []string
	Expires   time.Time // zero when the token has none (see Require)
	NotBefore time.Time
	IssuedAt  time.Time
	ID        string
	// Scopes are the token's scopes: its "scope" claim, space-separated
	// (RFC 9068) or a list, or else its "scp" claim, a list or a string.
	Scopes []string
	Custom T
}

// HasScope reports whether the token was granted scope.
func (c *Claims[T]) HasScope(scope string) bool { return slices.Contains(c.Scopes, scope) }

// registered are the claims the plugin checks, as the payload has them.
type registered struct {
	Issuer    string       `json:"iss"`
	Subject   string       `json:"sub"`
	Audience  stringList   `json:"aud"`
	Expires   *numericDate `json:"exp"`
	NotBefore *numericDate `json:"nbf"`
	IssuedAt  *numericDate `json:"iat"`
	ID        string       `json:"jti"`
	Scope     stringList   `json:"scope"`
	Scp       stringList   `json:"scp"`
}

// scopes are the token's scopes, from "scope" (space-separated, or a
// list as some providers write it) or else "scp".
func (r *registered) scopes() []string {
	switch {
	case len(r.Scope) == 1:
		return strings.Fields(r.Scope[0])
	case r.Scope != nil:
		return r.Scope
	}
	return r.Scp
}

// stringList is a claim that is a string or a list of strings, as "aud"
// (RFC 7519 §4.1.3) and "scp" are.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = stringList{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*l = list
	return nil
}

// numericDate is a time claim: seconds since the epoch, maybe with a
// fraction (RFC 7519 §2).
type numericDate struct{ time.Time }

var errDate = errors.New("a time claim is not a number of seconds")

func (d *numericDate) UnmarshalJSON(b []byte) error {
	// encoding/json hands over a valid JSON value: a number is made of
	// these bytes only, which also keeps out what ParseFloat alone
	// would take ("Inf", "0x1p3").
	if len(b) == 0 || strings.Trim(string(b), "0123456789.eE+-") != "" {
		return errDate
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.Abs(f) > 1e11 { // beyond the year 5000
		return errDate
	}
	sec, frac := math.Modf(f)
	d.Time = time.Unix(int64(sec), int64(frac*1e9))
	return nil
}

func (d *numericDate) time() time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.Time
}
