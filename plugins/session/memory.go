package session

import (
	"container/list"
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// MemoryStore keeps sessions in the process, bounded: past its capacity,
// saving a session forgets the one saved longest ago. Sessions kept in
// memory are lost with the process and not shared between instances: a
// service with more than one uses a shared store (Redis).
type MemoryStore struct {
	shards [memoryShards]memoryShard
	seed   maphash.Seed
	now    func() time.Time
}

const memoryShards = 16

type memoryShard struct {
	mu    sync.Mutex
	max   int
	items map[string]*list.Element
	order list.List // of *memoryItem, most recently saved first
}

type memoryItem struct {
	token   string
	data    []byte
	expires time.Time
}

// DefaultMemoryCapacity is the number of sessions a MemoryStore keeps by
// default: about 100 MB at 1 KiB a session.
const DefaultMemoryCapacity = 100_000

// NewMemoryStore returns a MemoryStore of DefaultMemoryCapacity sessions.
func NewMemoryStore() *MemoryStore { return NewMemoryStoreOf(DefaultMemoryCapacity) }

// NewMemoryStoreOf returns a MemoryStore that keeps about capacity
// sessions (at least 16).
func NewMemoryStoreOf(capacity int) *MemoryStore {
	m := &MemoryStore{seed: maphash.MakeSeed(), now: time.Now}
	per := max(1, capacity/memoryShards)
	for i := range m.shards {
		m.shards[i].max = per
		m.shards[i].items = make(map[string]*list.Element)
	}
	return m
}

func (m *MemoryStore) shard(token string) *memoryShard {
	return &m.shards[maphash.String(m.seed, token)%memoryShards]
}

// Load implements Store.
func (m *MemoryStore) Load(_ context.Context, token string) ([]byte, error) {
	sh := m.shard(token)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.items[token]
	if !ok {
		return nil, ErrNotFound
	}
	it := e.Value.(*memoryItem)
	if !m.now().Before(it.expires) {
		sh.remove(e)
		return nil, ErrNotFound
	}
	return it.data, nil
}

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, token string, data []byte, ttl time.Duration) (string, error) {
	create := token == ""
	if create {
		token = NewToken()
	}
	sh := m.shard(token)
	now := m.now()
	it := &memoryItem{token: token, data: append([]byte(nil), data...), expires: now.Add(ttl)}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e, ok := sh.items[token]; ok {
		live := now.Before(e.Value.(*memoryItem).expires)
		sh.remove(e)
		if !live && !create {
			return "", ErrNotFound
		}
	} else if !create {
		return "", ErrNotFound
	}
	for sh.order.Len() >= sh.max {
		sh.remove(sh.order.Back())
	}
	sh.items[token] = sh.order.PushFront(it)
	return token, nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(_ context.Context, token string) (bool, error) {
	sh := m.shard(token)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.items[token]
	if !ok {
		return false, nil
	}
	sh.remove(e)
	return m.now().Before(e.Value.(*memoryItem).expires), nil
}

// Len returns the number of sessions kept, expired ones not yet
// forgotten included.
func (m *MemoryStore) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += sh.order.Len()
		sh.mu.Unlock()
	}
	return n
}

func (sh *memoryShard) remove(e *list.Element) {
	delete(sh.items, e.Value.(*memoryItem).token)
	sh.order.Remove(e)
}
