// Package gcra is the generic cell rate algorithm a rate limit decides
// with: a key's whole state is one instant, its theoretical arrival time
// (TAT), so a store keeps one integer per key and a decision is a
// compare and an add. The Redis store's script is the same arithmetic in
// Lua; keep the two in step.
package gcra

// Result is one decision, in nanoseconds.
type Result struct {
	// TAT is the key's new theoretical arrival time (unchanged when the
	// request is refused).
	TAT int64
	// Allowed is true when the request fits the quota.
	Allowed bool
	// Remaining is how many more requests would pass now.
	Remaining int64
	// Reset is the time until the whole quota is available again.
	Reset int64
	// RetryAfter is the time until a refused request would pass; 0 when
	// allowed.
	RetryAfter int64
}

// Take decides a request arriving at now for a key whose stored TAT is
// tat (0 for a new key), under a quota of limit requests per window.
// limit must be at least 1 and window at least limit.
func Take(tat, now, limit, window int64) Result {
	interval := window / limit
	if tat < now {
		tat = now
	}
	next := tat + interval
	if over := next - now - window; over > 0 {
		return Result{TAT: tat, Remaining: 0, Reset: tat - now, RetryAfter: over}
	}
	remaining := (window - (next - now)) / interval
	if remaining > limit-1 {
		remaining = limit - 1
	}
	return Result{TAT: next, Allowed: true, Remaining: remaining, Reset: next - now}
}
