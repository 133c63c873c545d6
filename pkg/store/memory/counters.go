package memory

import (
	"context"
	"hash/maphash"
	"math/bits"
	"slices"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

var (
	_ store.Counters   = (*Counters)(nil)
	_ store.OneDecider = (*Counters)(nil)
)

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// Shards is the number of independently locked partitions of the keys; 0 means 64.
	Shards int
}

// Counters is the in-memory store.Counters. Create it with New.
type Counters struct {
	seed maphash.Seed
	// mask is ANDed into every key's hash: all ones, fewer in tests that make keys'
	// hashes collide.
	mask    uint64
	shards  []shard
	settled settled
}

// NewCounters returns an empty Counters.
func NewCounters(cfg CountersConfig) *Counters {
	n := cfg.Shards
	if n <= 0 {
		n = 64
	}
	s := &Counters{seed: maphash.MakeSeed(), mask: ^uint64(0), shards: make([]shard, n)}
	for i := range s.shards {
		s.shards[i].keys = map[uint64]*entry{}
		s.shards[i].sweepAt = minSweep
	}
	return s
}

// InProcess marks the capability of a store whose Decide runs in the process and
// cannot reply after a latency budget (gate.InProcess): the gate decides on the
// request's goroutine.
func (*Counters) InProcess() {}

// hash is key's hash: it chooses the shard and is the key of the shard's table.
func (s *Counters) hash(key string) uint64 { return maphash.String(s.seed, key) & s.mask }

// shardIndex maps the hash h onto the shards, by its high bits (multiplying rather
// than dividing); the shard's table hashes h again for its own slots.
func (s *Counters) shardIndex(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(s.shards)))
	return int(hi)
}

// Decide decides a request of cost against every counter of cs at now, atomically; see
// store.Counters. It holds the locks of the counters' shards, taken in ascending order
// (so that two decisions never wait for each other), while it decides.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) == 1 {
		s.decideOne(cs[0].Key, cs[0].Set, now, cost, &outs[0])
		return nil
	}
	var hs [store.MaxCounters]uint64
	var idx, order [store.MaxCounters]int
	locked := s.lock(cs, hs[:len(cs)], idx[:len(cs)], order[:0])
	defer s.unlock(locked)
	var sets [store.MaxCounters]*limiter.Set
	var states [store.MaxCounters][]limiter.State
	for i, c := range cs { // sweep first: a sweep may delete an entry just created
		if sh := &s.shards[idx[i]]; sh.find(hs[i], c.Key) == nil {
			sh.sweep(now)
		}
	}
	for i, c := range cs {
		sets[i], states[i] = c.Set, s.shards[idx[i]].entry(hs[i], c.Key, c.Set, now, false).states
	}
	_, err := limiter.DecideAll(sets[:len(cs)], states[:len(cs)], now, cost, outs)
	return err
}

// DecideOne decides a request of cost for the one counter {key, set}: Decide with one
// counter, without its slices; see store.OneDecider.
func (s *Counters) DecideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64) (d limiter.Decision, err error) {
	if err := store.CheckRequest(key, set, now, cost); err != nil {
		return limiter.Decision{}, err // before the entry is touched: bad input changes nothing
	}
	s.decideOne(key, set, now, cost, &d)
	return d, nil
}

// decideOne decides checked input for one counter into d, holding its shard's lock.
// One rule set: Set.DecideChecked answers as limiter.DecideAll would.
func (s *Counters) decideOne(key string, set *limiter.Set, now, cost int64, d *limiter.Decision) {
	h := s.hash(key)
	sh := &s.shards[s.shardIndex(h)]
	sh.mu.Lock()
	e := sh.find(h, key)
	if e == nil || e.set != set {
		e = sh.entry(h, key, set, now, true)
	}
	set.DecideChecked(e.states, now, cost, d)
	sh.mu.Unlock()
}

// lock locks the shards of cs's keys in ascending order, each once, writing each
// counter's hash into hs and shard index into idx; it returns the locked indexes,
// appended to order, for unlock.
func (s *Counters) lock(cs []store.Counter, hs []uint64, idx, order []int) []int {
	for i, c := range cs {
		hs[i] = s.hash(c.Key)
		idx[i] = s.shardIndex(hs[i])
		if !slices.Contains(order, idx[i]) {
			order = append(order, idx[i])
		}
	}
	slices.Sort(order)
	for _, i := range order {
		s.shards[i].mu.Lock()
	}
	return order
}

func (s *Counters) unlock(order []int) {
	for _, i := range order {
		s.shards[i].mu.Unlock()
	}
}

// Peek reports what a request of cost 1 would get; see store.Counters.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	h := s.hash(key)
	sh := &s.shards[s.shardIndex(h)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.find(h, key)
	if e == nil {
		var fresh [limiter.MaxRules]limiter.State
		return set.Peek(fresh[:set.Len()], now, outs)
	}
	if e.set != set { // read another set's way, without moving the entry to it
		return set.Peek(e.statesFor(set), now, outs)
	}
	return set.Peek(e.states, now, outs)
}

// Reset forgets key's state.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	h := s.hash(key)
	sh := &s.shards[s.shardIndex(h)]
	sh.mu.Lock()
	sh.remove(h, key)
	sh.mu.Unlock()
	return nil
}

// Len returns the number of keys held, idle ones not yet swept included.
func (s *Counters) Len() int {
	n := 0
	for i := range s.shards {
		s.shards[i].mu.Lock()
		n += s.shards[i].n
		s.shards[i].mu.Unlock()
	}
	return n
}
