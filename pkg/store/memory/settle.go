package memory

import (
	"context"
	"maps"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Settler = (*Counters)(nil)

// settled holds the idempotency markers of applied settlements until their
// reservations expire.
type settled struct {
	mu      sync.Mutex
	expires map[string]int64 // id -> the reservation's expiry
	sweepAt int              // sweep expired markers when the map reaches this size
}

// Settle applies s to every counter of cs at once, at most once per s.ID; see
// store.Settler. It holds the counters' shard locks, then the markers' lock.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	if err := store.CheckSettlement(cs, st); err != nil {
		return false, err
	}
	if st.Now >= st.Expires {
		return false, nil
	}
	var hs [store.MaxCounters]uint64
	var idx, order [store.MaxCounters]int
	locked := s.lock(cs, hs[:len(cs)], idx[:len(cs)], order[:0])
	defer s.unlock(locked)
	if !s.settled.mark(st.ID, st.Now, st.Expires) {
		return false, nil
	}
	for i, c := range cs {
		e := s.shards[idx[i]].entry(hs[i], c.Key, c.Set, st.Now, false)
		c.Set.Settle(e.states, st.At, st.Now, st.Delta)
	}
	return true, nil
}

// mark records id until expires and reports whether it was new.
func (m *settled) mark(id string, now, expires int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expires == nil {
		m.expires, m.sweepAt = map[string]int64{}, 1024
	}
	if e, ok := m.expires[id]; ok && now < e {
		return false
	}
	if len(m.expires) >= m.sweepAt {
		maps.DeleteFunc(m.expires, func(_ string, e int64) bool { return e <= now })
		m.sweepAt = max(1024, 2*len(m.expires))
	}
	m.expires[id] = expires
	return true
}
