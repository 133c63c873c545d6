package hotcounter

import (
	"context"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Refunder is a store.Counters that can take back units consumed on key under set at
// the instant at and not spent: the units of a lease that an instance no longer
// needs. Only sets of windows are given back (a bucket's lease lives one lease time);
// a window that has ended takes nothing back, and that is not an error. The dynamodb
// store's Counters is one.
type Refunder interface {
	GiveBack(ctx context.Context, key string, set *limiter.Set, at, units int64) error
}

// held lists the counters of window sets that hold a lease, so that the leases of
// those that went idle can be given back.
type held struct {
	mu sync.Mutex
	m  map[*counter]string // the counter's key
}

func (h *held) add(e *counter, key string) {
	h.mu.Lock()
	if h.m == nil {
		h.m = map[*counter]string{}
	}
	h.m[e] = key
	h.mu.Unlock()
}

// maxGiveBacks bounds the calls one decision spends giving leases back.
const maxGiveBacks = 4

// refund is one lease taken out of its counter to be given back.
type refund struct {
	key       string
	set       *limiter.Set
	at, units int64
}

// idle takes out the leases of at most n counters that saw no decision for idleFor
// (and are not reserving), and forgets the counters whose lease has ended.
func (h *held) idle(now, idleFor int64, n int) []refund {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []refund
	for e, key := range h.m {
		if !e.mu.TryLock() {
			continue // in use: not idle
		}
		switch {
		case e.lease.units == 0 || now >= e.lease.expires:
			delete(h.m, e)
		case len(out) < n && now-e.meter.seen >= idleFor && len(e.reserving) == 0:
			out = append(out, refund{key: key, set: e.set, at: e.lease.at, units: e.lease.units})
			e.lease.units = 0
			delete(h.m, e)
		}
		e.mu.Unlock()
	}
	return out
}

// giveBackIdle gives the leases of counters idle for a lease time back to Next, at
// most maxGiveBacks of them once per lease time, when Next is a Refunder: what an instance leased and
// stopped spending goes back to the other instances instead of waiting for its
// window's end. A failed give-back loses its units, as an expired lease does.
func (s *Store) giveBackIdle(ctx context.Context, now int64) {
	if s.refunder == nil {
		return
	}
	next := s.nextGiveBack.Load()
	if now < next || !s.nextGiveBack.CompareAndSwap(next, now+s.p.leaseTime) {
		return
	}
	for _, r := range s.held.idle(now, s.p.leaseTime, maxGiveBacks) {
		if err := s.refunder.GiveBack(ctx, r.key, r.set, r.at, r.units); err != nil {
			s.stats.lost.Add(r.units)
			continue
		}
		s.stats.returned.Add(r.units)
	}
}
