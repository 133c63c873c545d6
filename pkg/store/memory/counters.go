package memory

import (
	"context"
	"hash/maphash"
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
	seed   maphash.Seed
	shards []shard
}

// NewCounters returns an empty Counters.
func NewCounters(cfg CountersConfig) *Counters {
	n := cfg.Shards
	if n <= 0 {
		n = 64
	}
	s := &Counters{seed: maphash.MakeSeed(), shards: make([]shard, n)}
	for i := range s.shards {
		s.shards[i].keys = map[string]*entry{}
		s.shards[i].sweepAt = minSweep
	}
	return s
}

func (s *Counters) shard(key string) *shard { return &s.shards[s.shardIndex(key)] }

func (s *Counters) shardIndex(key string) int {
	return int(maphash.String(s.seed, key) % uint64(len(s.shards)))
}

// Decide decides a request of cost against every counter of cs at now, atomically; see
// store.Counters. It holds the locks of the counters' shards, taken in ascending order
// (so that two decisions never wait for each other), while it decides.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) == 1 {
		var err error
		outs[0], err = s.DecideOne(ctx, cs[0].Key, cs[0].Set, now, cost)
		return err
	}
	var idx, order [store.MaxCounters]int
	locked := s.lock(cs, idx[:len(cs)], order[:0])
	defer s.unlock(locked)
	var sets [store.MaxCounters]*limiter.Set
	var states [store.MaxCounters][]limiter.State
	var entries [store.MaxCounters]*entry
	for i, c := range cs { // sweep first: a sweep may delete an entry just created
		if sh := &s.shards[idx[i]]; sh.keys[c.Key] == nil {
			sh.sweep(now)
		}
	}
	for i, c := range cs {
		entries[i] = s.shards[idx[i]].entry(c.Key, c.Set, now, false)
		sets[i], states[i] = c.Set, entries[i].states
	}
	_, err := limiter.DecideAll(sets[:len(cs)], states[:len(cs)], now, cost, outs)
	return err
}

// DecideOne decides a request of cost for the one counter {key, set}: Decide with one
// counter, without its slices; see store.OneDecider.
func (s *Counters) DecideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, cost); err != nil {
		return limiter.Decision{}, err // before the entry is touched: bad input changes nothing
	}
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	// One rule set: Set.Decide answers as limiter.DecideAll would.
	return set.Decide(sh.entry(key, set, now, true).states, now, cost)
}

// lock locks the shards of cs's keys in ascending order, each once, writing each
// counter's shard index into idx; it returns the locked indexes, appended to order,
// for unlock.
func (s *Counters) lock(cs []store.Counter, idx, order []int) []int {
	for i, c := range cs {
		idx[i] = s.shardIndex(c.Key)
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
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.keys[key]
	if e == nil {
		var fresh [limiter.MaxRules]limiter.State
		return set.Peek(fresh[:set.Len()], now, outs)
	}
	if e.set != set {
		e.adopt(set)
	}
	return set.Peek(e.states, now, outs)
}

// Reset forgets key's state.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	sh := s.shard(key)
	sh.mu.Lock()
	delete(sh.keys, key)
	sh.mu.Unlock()
	return nil
}

// Len returns the number of keys held, idle ones not yet swept included.
func (s *Counters) Len() int {
	n := 0
	for i := range s.shards {
		s.shards[i].mu.Lock()
		n += len(s.shards[i].keys)
		s.shards[i].mu.Unlock()
	}
	return n
}
