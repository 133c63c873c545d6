package hotcounter

import (
	"hash/maphash"
	"sync"
)

const tableShards = 64

// table holds the counters this instance has seen, in independently locked shards,
// each bounded: a full shard forgets its idle counters, and when that is not enough,
// any counter it can (whose leased units are then lost).
type table struct {
	seed   maphash.Seed
	max    int // per shard
	shards [tableShards]tableShard
}

type tableShard struct {
	mu sync.Mutex
	m  map[string]*counter
	_  [48]byte // keep shards' locks on separate cache lines
}

func newTable(maxEntries int) *table {
	t := &table{seed: maphash.MakeSeed(), max: max(maxEntries/tableShards, 1)}
	for i := range t.shards {
		t.shards[i].m = map[string]*counter{}
	}
	return t
}

func (t *table) shard(key string) *tableShard {
	return &t.shards[maphash.String(t.seed, key)%tableShards]
}

// get returns key's counter, created when new.
func (t *table) get(key string, now int64, st *stats) *counter {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[key]; e != nil {
		return e
	}
	if len(sh.m) >= t.max {
		sh.sweep(now, t.max, st)
	}
	e := newCounter()
	sh.m[key] = e
	return e
}

// sweep forgets the idle counters, then, while the shard is above 3/4 of its bound,
// any counter not in use.
func (sh *tableShard) sweep(now int64, bound int, st *stats) {
	for k, e := range sh.m {
		if e.mu.TryLock() {
			if e.idle(now) {
				delete(sh.m, k)
			}
			e.mu.Unlock()
		}
	}
	for k, e := range sh.m {
		if len(sh.m) < bound-bound/4 {
			return
		}
		if len(e.reserving) == 0 && e.mu.TryLock() {
			st.lost.Add(e.lease.units)
			e.lease.units = 0
			delete(sh.m, k)
			e.mu.Unlock()
		}
	}
}

// drop forgets key's counter (after a reset: its lease was reserved in the old state).
func (t *table) drop(key string, st *stats) {
	sh := t.shard(key)
	sh.mu.Lock()
	e := sh.m[key]
	delete(sh.m, key)
	sh.mu.Unlock()
	if e != nil {
		e.mu.Lock()
		st.lost.Add(e.lease.units)
		e.lease.units = 0
		e.mu.Unlock()
	}
}
