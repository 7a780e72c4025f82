package bearer

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// APIKey is an API key as a KeyStore holds it: its SHA-256 sum, never
// the key itself, so a leaked store grants nothing.
type APIKey struct {
	// ID names the key to handlers (Identity.Key) and in logs; never the
	// key itself.
	ID string
	// Hash is HashKey of the key.
	Hash [sha256.Size]byte
	// Scopes are what the key may do: a route given Scopes needs a key
	// holding every one of its scopes.
	Scopes []string
}

// HashKey returns the SHA-256 sum of key: what a KeyStore keeps, and
// what it is asked for. API keys are random strings of at least 128
// bits, so a fast hash is enough; a password would need a slow one.
func HashKey(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

// KeyStore finds API keys by hash: Find returns the key whose Hash is
// sum, or nil when none is. It never sees the key a client sent, only its
// sum. A store kept in a database looks the sum up by index; one held in
// memory compares it with every key in constant time (MemoryKeys). An
// error answers 500 and is logged.
type KeyStore interface {
	Find(ctx context.Context, sum [sha256.Size]byte) (*APIKey, error)
}

// MemoryKeys returns a KeyStore holding keys, which Find compares with
// the sum in constant time, every one of them, whichever matches.
func MemoryKeys(keys ...APIKey) KeyStore { return memoryKeys(slices.Clone(keys)) }

type memoryKeys []APIKey

func (m memoryKeys) Find(_ context.Context, sum [sha256.Size]byte) (*APIKey, error) {
	index := -1
	for i := range m {
		eq := subtle.ConstantTimeCompare(sum[:], m[i].Hash[:])
		index = subtle.ConstantTimeSelect(eq, i, index)
	}
	if index < 0 {
		return nil, nil
	}
	return &m[index], nil
}

// Store takes the keys from store, with their scopes, instead of Keys or
// Auth.
func Store(store KeyStore) Option {
	return func(c *config) {
		if store == nil {
			c.fail(errors.New("bearer.Store: nil store"))
			return
		}
		c.store = store
	}
}

// Header reads the key from the request header name (its whole value,
// trimmed), as an API key is often sent ("X-API-Key: <key>"), instead of
// "Authorization: <scheme> <key>". The plugin then declares an apiKey
// security scheme named after the header; answers still carry the
// scheme's challenge.
func Header(name string) Option {
	return func(c *config) {
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			c.fail(fmt.Errorf("bearer.Header: invalid header name %q", name))
			return
		}
		c.header = name
	}
}

// rule is what Scopes gives a route.
type rule struct {
	scopes    []string
	challenge []string // the route's 403 WWW-Authenticate value, made at Ready
	scheme    string   // the security scheme the route's description lists them with
}

// String describes the rule for PrintRoutes.
func (r *rule) String() string { return "scopes " + strings.Join(r.scopes, " ") }

// SecurityScopes lists the rule's scopes in the route's description
// (app.ScopedSecurity).
func (r *rule) SecurityScopes() (string, []string) { return r.scheme, r.scopes }

// Scopes requires, of a route's requests, a key (from a Store) holding
// every one of scopes; another key is answered 403, "insufficient
// scope". Ready fails for a route given it where no bearer plugin with a
// Store guards it.
func Scopes(scopes ...string) app.RouteOption {
	return app.WithConfig(&rule{scopes: slices.Clone(scopes)})
}

// ErrScopesNeedStore fails Ready for a route given Scopes where the
// bearer plugin has keys without scopes (Keys, Auth).
var ErrScopesNeedStore = errors.New("bearer.Scopes needs keys with scopes: give the plugin bearer.Store")
