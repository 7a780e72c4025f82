package jwt

import (
	"context"
	"time"
)

// Clock replaces time.Now for the claims' checks and the fetches'
// spacing, in tests.
func Clock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Wait replaces the background refresh's sleep, in tests: fn is called
// after each fetch with the delay before the next, and says whether to
// fetch again.
func Wait(fn func(ctx context.Context, d time.Duration) bool) Option {
	return func(c *config) { c.wait = fn }
}
