package gcra

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const sec = int64(1e9)

func TestTakeBurstThenRefill(t *testing.T) {
	t.Parallel()
	var tat int64
	now := int64(1000) * sec
	for i := range int64(3) {
		r := Take(tat, now, 3, 60*sec)
		assert.True(t, r.Allowed, "request %d", i+1)
		assert.Equal(t, 2-i, r.Remaining)
		assert.Equal(t, (i+1)*20*sec, r.Reset)
		tat = r.TAT
	}
	r := Take(tat, now, 3, 60*sec)
	assert.False(t, r.Allowed)
	assert.Equal(t, int64(0), r.Remaining)
	assert.Equal(t, 20*sec, r.RetryAfter, "one interval until a unit is back")
	assert.Equal(t, tat, r.TAT, "a refusal leaves the state alone")

	r = Take(tat, now+20*sec, 3, 60*sec)
	assert.True(t, r.Allowed, "one unit back after one interval")
	assert.Equal(t, int64(0), r.Remaining)

	r = Take(tat, now+61*sec, 3, 60*sec)
	assert.True(t, r.Allowed, "a key idle for a window has its whole quota")
	assert.Equal(t, int64(2), r.Remaining)
}

func TestTakeUnevenInterval(t *testing.T) {
	t.Parallel()
	// 60 s / 7 is not a whole number of nanoseconds: still exactly 7 pass.
	var tat int64
	passed := 0
	for range 20 {
		r := Take(tat, 5*sec, 7, 60*sec)
		if r.Allowed {
			passed++
			tat = r.TAT
		}
	}
	assert.Equal(t, 7, passed)
}
