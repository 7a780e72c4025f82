// Package cookie signs and encrypts cookie values with rotating keys, and
// makes cookies with the attributes a browser session wants by default.
//
// A [Signer] appends an HMAC-SHA256 of the cookie's name and value: the
// client can read the value but not change it. A [Sealer] encrypts the
// value with AES-256-GCM, bound to the cookie's name: the client can
// neither read nor change it. Both take their keys newest first: the
// first key signs or seals, every key verifies or opens, so a key is
// rotated by putting the new one in front and dropping the old one once
// the cookies it made have expired.
//
// Keys are at least 32 random bytes each, never a password; derive them
// with a KDF when all you have is a passphrase.
package cookie

import (
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
)

// MinKeyLen is the shortest key a Signer or Sealer takes, in bytes.
const MinKeyLen = 32

// maxValueLen is the longest value Verify and Open look at: browsers keep
// cookies of about 4 KiB, so anything longer is not one they sent.
const maxValueLen = 4096

// ErrInvalid is the error of a value that was not made by one of the keys
// for that cookie name, was changed, or is malformed. It says no more, so
// that a client learns nothing from the refusal.
var ErrInvalid = errors.New("cookie: invalid value")

// ErrKey is the error of a key list that cannot be used.
var ErrKey = errors.New("cookie: invalid key")

// New returns a cookie called name holding value, as a session cookie
// should be by default: Path=/, HttpOnly (no script reads it), Secure
// (sent over HTTPS only; browsers treat http://localhost as secure), and
// SameSite=Lax (not sent on cross-site subrequests and form posts). Change
// a field of the result for anything else.
func New(name, value string) *http.Cookie {
	return &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		Secure:   true,
		SameSite: http.SameSiteLaxMode,
	}
}

// Expire returns the cookie that deletes the cookie called name: New's
// attributes, an empty value and Max-Age=0. The Path (and Domain, if the
// cookie had one) must be those it was set with.
func Expire(name string) *http.Cookie {
	c := New(name, "") // #nosec G124 -- New sets HttpOnly, Secure and SameSite
	c.MaxAge = -1      // written as Max-Age=0
	return c
}

// deriveKeys checks keys and derives from each a 32-byte key for one
// purpose, so that one secret given to a Signer and a Sealer does not
// serve as an HMAC key and an AES key at once.
func deriveKeys(what, purpose string, keys [][]byte) ([][]byte, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: %s needs at least one key", ErrKey, what)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if len(k) < MinKeyLen {
			return nil, fmt.Errorf("%w: %s's key %d has %d bytes, fewer than %d", ErrKey, what, i, len(k), MinKeyLen)
		}
		d, err := hkdf.Key(sha256.New, k, nil, "burrow cookie "+purpose, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %s's key %d: %w", ErrKey, what, i, err)
		}
		out[i] = d
	}
	return out, nil
}
