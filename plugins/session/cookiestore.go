package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/burrow-go/burrow/plugins/cookie"
)

// CookieStore keeps each session in its own cookie, sealed (AES-GCM):
// nothing is kept on the server, so any instance reads any session, but a
// session cannot be revoked before it expires: Destroy clears the
// browser's cookie, and a copy of the cookie taken earlier stays valid
// until its expiry. The session's data must fit a cookie: about 3 KB once
// sealed and encoded. Use a server-side store where log-out must be
// final.
type CookieStore struct {
	sealer *cookie.Sealer
	now    func() time.Time
}

// NewCookieStore returns a CookieStore sealing with keys[0] and opening
// with any of keys (cookie.NewSealer).
func NewCookieStore(keys ...[]byte) (*CookieStore, error) {
	s, err := cookie.NewSealer(keys...)
	if err != nil {
		return nil, err
	}
	return &CookieStore{sealer: s, now: time.Now}, nil
}

// maxCookieToken is the longest sealed session CookieStore writes:
// browsers keep about 4,096 bytes per cookie, name and attributes
// included.
const maxCookieToken = 3800

// ErrTooLarge is the error of a session whose data does not fit its
// cookie.
var ErrTooLarge = errors.New("session: too large for a cookie")

// sealName binds the sealed value to this use, whatever the cookie is
// called.
const sealName = "burrow session"

// Load implements Store.
func (c *CookieStore) Load(_ context.Context, token string) ([]byte, error) {
	raw, err := c.sealer.Open(sealName, token)
	if err != nil {
		return nil, ErrNotFound
	}
	expires, n := binary.Varint(raw)
	if n <= 0 || c.now().Unix() >= expires {
		return nil, ErrNotFound
	}
	return raw[n:], nil
}

// Save implements Store: the token is the sealed expiry (Unix seconds,
// a varint) and data.
func (c *CookieStore) Save(_ context.Context, _ string, data []byte, ttl time.Duration) (string, error) {
	raw := binary.AppendVarint(make([]byte, 0, binary.MaxVarintLen64+len(data)), c.now().Add(ttl).Unix())
	token := c.sealer.Seal(sealName, append(raw, data...))
	if len(token) > maxCookieToken {
		return "", fmt.Errorf("%w: %d bytes sealed, a cookie holds %d", ErrTooLarge, len(token), maxCookieToken)
	}
	return token, nil
}

// Delete implements Store; a sealed session cannot be forgotten, so it
// reports true.
func (c *CookieStore) Delete(context.Context, string) (bool, error) { return true, nil }
