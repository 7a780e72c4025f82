package cache

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Store keeps cached answers, encoded, by key. Get returns nil and no
// error for a key it does not hold (or holds past its time to live).
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// Memory is a Store in the process's memory, bounded: past MaxEntries
// entries or MaxBytes bytes, the least recently used entries go first.
type Memory struct {
	mu       sync.Mutex
	entries  map[string]*list.Element
	lru      list.List // of *memEntry, most recently used first
	bytes    int
	maxItems int
	maxBytes int
	now      func() time.Time
}

type memEntry struct {
	key     string
	value   []byte
	expires time.Time
}

// MemoryOption configures a Memory store.
type MemoryOption func(*Memory)

// MaxEntries bounds how many entries the store holds (10,000 by
// default); n must be positive.
func MaxEntries(n int) MemoryOption {
	return func(m *Memory) {
		if n > 0 {
			m.maxItems = n
		}
	}
}

// MaxBytes bounds the bytes of the entries the store holds (64 MiB by
// default); n must be positive.
func MaxBytes(n int) MemoryOption {
	return func(m *Memory) {
		if n > 0 {
			m.maxBytes = n
		}
	}
}

// NewMemory returns an empty Memory store.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{entries: map[string]*list.Element{}, maxItems: 10_000, maxBytes: 64 << 20, now: time.Now}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Get returns the value of key, or nil.
func (m *Memory) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[key]
	if !ok {
		return nil, nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.remove(el)
		return nil, nil
	}
	m.lru.MoveToFront(el)
	return e.value, nil
}

// Set stores value under key for ttl. A value larger than the store's
// byte bound is not stored.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	size := len(key) + len(value)
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.entries[key]; ok {
		m.remove(el)
	}
	if size > m.maxBytes || ttl <= 0 {
		return nil
	}
	for m.lru.Len() >= m.maxItems || m.bytes+size > m.maxBytes {
		m.remove(m.lru.Back())
	}
	m.entries[key] = m.lru.PushFront(&memEntry{key: key, value: value, expires: m.now().Add(ttl)})
	m.bytes += size
	return nil
}

// Len is how many entries the store holds, expired ones included until
// they are read or pushed out.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

func (m *Memory) remove(el *list.Element) {
	e := m.lru.Remove(el).(*memEntry)
	delete(m.entries, e.key)
	m.bytes -= len(e.key) + len(e.value)
}
