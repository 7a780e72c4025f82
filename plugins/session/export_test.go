package session

import "time"

// Clock replaces time.Now for the plugin's expiry, in tests.
var Clock = clock

// SetClock replaces time.Now for a MemoryStore or CookieStore.
func (m *MemoryStore) SetClock(now func() time.Time) { m.now = now }
func (c *CookieStore) SetClock(now func() time.Time) { c.now = now }
