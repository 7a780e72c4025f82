package ratelimit

import (
	"context"
	"time"
)

// Store keeps the state of every key and decides, atomically, whether
// one more request fits a quota. A store shared by several instances
// (Redis) makes their limits one.
type Store interface {
	// Take counts one request for key under a quota of limit requests
	// per window and says whether it passes. An error means the store
	// could not decide; the limiter then answers 503.
	Take(ctx context.Context, key string, limit int, window time.Duration) (Decision, error)
}

// Decision is a store's answer for one request.
type Decision struct {
	// Allowed is true when the request fits the quota.
	Allowed bool
	// Remaining is how many more requests would pass now.
	Remaining int
	// Reset is the time until the key's whole quota is available again.
	Reset time.Duration
	// RetryAfter is the time until a refused request would pass; 0 when
	// allowed.
	RetryAfter time.Duration
	// Denied counts the key's refusals in a row, this one included; 0
	// when allowed. Ban compares it.
	Denied int
}
