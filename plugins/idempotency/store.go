package idempotency

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/app"
)

// ErrInFlight is what Records.Claim returns while another request holds
// the key: the plugin answers 409.
var ErrInFlight = errors.New("a request with this Idempotency-Key is still being processed")

// Record is what a store keeps under a key.
type Record struct {
	// Fingerprint identifies the request that claimed the key (method,
	// path and query, body), so that a repeat with another request is
	// told apart.
	Fingerprint string
	// Done is false while the request that claimed the key runs, true
	// once its answer is recorded.
	Done   bool
	Status int
	Header http.Header
	Body   []byte
}

// Records is one request's access to a store's records, built for the
// request by the Store (as a request value). key is the client's key
// hashed with its identity.
type Records interface {
	// Claim takes key for the request, for ttl: it returns nil when the
	// key was free (or expired) and is now the request's, the record
	// already kept under key otherwise, or ErrInFlight when another
	// request holds it and the store can tell.
	Claim(ctx context.Context, key, fingerprint string, ttl time.Duration) (*Record, error)
	// Complete records the answer of the request that claimed key, which
	// succeeded.
	Complete(ctx context.Context, key string, r *Record) error
	// Release gives key up: the request that claimed it failed. A store
	// that writes in the request's transaction has nothing to do, since
	// the rollback removes the claim.
	Release(ctx context.Context, key string) error
}

// Store is where the plugin keeps its records: SQL's, or one of a store
// package (plugins/idempotency/redisstore).
type Store struct {
	provide func(s *app.Server) error
}

// NewStore makes a Store of a request value's constructor: fn builds
// the request's Records from In (a struct embedding app.In, or
// struct{}), filled as a request value's input is — the request's
// transaction, a client provided as a service.
func NewStore[In any](fn func(ctx context.Context, in In) (Records, error)) Store {
	return Store{provide: func(s *app.Server) error {
		return s.ProvideRequest(app.Provider(func(ctx context.Context, in In) (Records, func(bool) error, error) {
			r, err := fn(ctx, in)
			return r, nil, err
		}))
	}}
}
