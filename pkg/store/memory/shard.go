package memory

import (
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// minSweep is the shard size below which no sweep runs.
const minSweep = 1024

type shard struct {
	mu      sync.Mutex
	keys    map[string]*entry
	sweepAt int
	_       [40]byte // keep shards' locks on separate cache lines
}

// entry is one key's state, for the set it was last decided with.
type entry struct {
	set    *limiter.Set
	states []limiter.State
}

// entry returns key's entry, created for set when new and moved to set when it was
// decided with another; the shard's lock is held. With sweep, a new entry's shard is
// swept at now first (a sweep may delete an idle entry, one just made included: a
// decision over several counters sweeps their shards before making any).
func (sh *shard) entry(key string, set *limiter.Set, now int64, sweep bool) *entry {
	e := sh.keys[key]
	if e == nil {
		if sweep {
			sh.sweep(now)
		}
		e = &entry{set: set, states: set.NewStates()}
		sh.keys[key] = e
	} else if e.set != set {
		e.adopt(set)
	}
	return e
}

// sweep deletes the keys idle at now once the shard has doubled since the last sweep,
// so that memory follows the keys in use at an amortised O(1) per new key.
func (sh *shard) sweep(now int64) {
	if len(sh.keys) < sh.sweepAt {
		return
	}
	for k, e := range sh.keys {
		if e.set.IdleAt(e.states) <= now {
			delete(sh.keys, k)
		}
	}
	sh.sweepAt = max(2*len(sh.keys), minSweep)
}

// adopt moves the entry to a new set: each rule keeps the state of the old rule with the
// same limiter.Rule.StateID and starts afresh otherwise.
func (e *entry) adopt(set *limiter.Set) {
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
	e.set, e.states = set, states
}
