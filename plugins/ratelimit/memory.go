package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/burrow-go/burrow/plugins/ratelimit/internal/gcra"
)

// DefaultMaxKeys is how many keys a memory store holds unless told
// otherwise: about 3 MB of state at most.
const DefaultMaxKeys = 65536

// shards spreads the keys over independent locks, so requests for
// different keys seldom wait for each other.
const shards = 64

// sample is how many entries a full shard looks at to choose the one it
// evicts.
const sample = 8

// Memory is a Store in this process's memory, bounded: past its key
// count a shard evicts an entry whose quota is whole again (it holds
// nothing worth keeping), or else, among a sample, the one closest to
// whole. A flood of new keys (spoofed users, an IPv6 range) therefore
// costs fixed memory, at the price of forgiving the keys nearest to
// forgiveness anyway.
type Memory struct {
	seed   maphash.Seed
	max    int // per shard
	now    func() time.Time
	shards [shards]shard
}

type shard struct {
	mu sync.Mutex
	m  map[string]entry
	_  [40]byte // keep shards on their own cache lines
}

type entry struct {
	tat    int64
	denied int64
}

// MemoryOption configures NewMemory.
type MemoryOption func(*Memory)

// MaxKeys bounds the keys the store holds (DefaultMaxKeys by default;
// below 64, 64).
func MaxKeys(n int) MemoryOption {
	return func(m *Memory) { m.max = max(n, shards) / shards }
}

// Clock replaces time.Now, for tests.
func Clock(now func() time.Time) MemoryOption {
	return func(m *Memory) { m.now = now }
}

// NewMemory returns an empty memory store.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{seed: maphash.MakeSeed(), max: DefaultMaxKeys / shards, now: time.Now}
	for _, o := range opts {
		o(m)
	}
	for i := range m.shards {
		m.shards[i].m = make(map[string]entry)
	}
	return m
}

// Take implements Store; it never fails.
func (m *Memory) Take(_ context.Context, key string, limit int, window time.Duration) (Decision, error) {
	now := m.now().UnixNano()
	sh := &m.shards[maphash.String(m.seed, key)%shards]
	sh.mu.Lock()
	e, found := sh.m[key]
	r := gcra.Take(e.tat, now, int64(limit), int64(window))
	if r.Allowed {
		e.denied = 0
	} else {
		e.denied++
	}
	e.tat = r.TAT
	if !found && len(sh.m) >= m.max {
		sh.evict(now)
	}
	sh.m[key] = e
	sh.mu.Unlock()
	return Decision{
		Allowed:    r.Allowed,
		Remaining:  int(r.Remaining),
		Reset:      time.Duration(r.Reset),
		RetryAfter: time.Duration(r.RetryAfter),
		Denied:     int(e.denied),
	}, nil
}

// Len reports how many keys the store holds.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// evict drops one entry: the first spent one (its quota whole again) of
// a sample, else the sampled one closest to whole. Map iteration starts
// at a random place, so the sample is random and costs O(sample).
func (sh *shard) evict(now int64) {
	victim, oldest, seen := "", int64(0), 0
	for k, e := range sh.m {
		if e.tat <= now {
			delete(sh.m, k)
			return
		}
		if seen == 0 || e.tat < oldest {
			victim, oldest = k, e.tat
		}
		if seen++; seen == sample {
			break
		}
	}
	delete(sh.m, victim)
}
