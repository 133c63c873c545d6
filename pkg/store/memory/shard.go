package memory

import (
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// minSweep is the shard size below which no sweep runs.
const minSweep = 1024

// shard is one independently locked partition of the keys. Its table is keyed by the
// key's 64-bit hash, the one that chose the shard, so that a key is hashed once per
// decision; keys whose hashes collide are chained from one slot through entry.next.
type shard struct {
	mu      sync.Mutex
	keys    map[uint64]*entry
	n       int // keys held: len(keys) plus those chained behind another
	sweepAt int
	_       [32]byte // keep shards' locks on separate cache lines
}

// entry is one key's state, for the set it was last decided with.
type entry struct {
	key    string
	set    *limiter.Set
	states []limiter.State
	next   *entry // another key of the same hash
}

// find returns the entry of key, whose hash is h, or nil when the shard holds none.
func (sh *shard) find(h uint64, key string) *entry {
	e := sh.keys[h]
	for e != nil && e.key != key {
		e = e.next
	}
	return e
}

// entry returns key's entry, created for set when new and moved to set when it was
// decided with another; the shard's lock is held. With sweep, a new entry's shard is
// swept at now first (a sweep may delete an idle entry, one just made included: a
// decision over several counters sweeps their shards before making any).
func (sh *shard) entry(h uint64, key string, set *limiter.Set, now int64, sweep bool) *entry {
	e := sh.find(h, key)
	if e == nil {
		if sweep {
			sh.sweep(now)
		}
		e = &entry{key: key, set: set, states: set.NewStates(), next: sh.keys[h]}
		sh.keys[h] = e
		sh.n++
	} else if e.set != set {
		e.adopt(set)
	}
	return e
}

// remove deletes key's entry, whose hash is h, when the shard holds one.
func (sh *shard) remove(h uint64, key string) {
	sh.keep(h, func(e *entry) bool { return e.key != key })
}

// keep keeps, of the entries chained at h, those for which ok is true.
func (sh *shard) keep(h uint64, ok func(*entry) bool) {
	var kept *entry
	for e := sh.keys[h]; e != nil; {
		next := e.next
		if ok(e) {
			e.next, kept = kept, e
		} else {
			sh.n--
		}
		e = next
	}
	if kept == nil {
		delete(sh.keys, h)
	} else {
		sh.keys[h] = kept
	}
}

// sweep deletes the keys idle at now once the shard has doubled since the last sweep,
// so that memory follows the keys in use at an amortised O(1) per new key.
func (sh *shard) sweep(now int64) {
	if sh.n < sh.sweepAt {
		return
	}
	live := func(e *entry) bool { return e.set.IdleAt(e.states) > now }
	for h := range sh.keys {
		sh.keep(h, live)
	}
	sh.sweepAt = max(2*sh.n, minSweep)
}

// adopt moves the entry to a new set: each rule keeps the state of the old rule with the
// same limiter.Rule.StateID and starts afresh otherwise.
func (e *entry) adopt(set *limiter.Set) {
	e.set, e.states = set, e.statesFor(set)
}

// statesFor returns the entry's states as set's rules would find them (adopt's),
// leaving the entry as it is: a Peek reads them without moving the entry.
func (e *entry) statesFor(set *limiter.Set) []limiter.State {
	states := set.NewStates()
	for i := range states {
		id := set.Rule(i).StateID()
		for j := range e.set.Len() {
			if e.set.Rule(j).StateID() == id {
				states[i] = e.states[j]
				break
			}
		}
	}
	return states
}
