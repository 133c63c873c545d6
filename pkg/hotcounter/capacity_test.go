package hotcounter_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// capacityStore models DynamoDB for the simulation and the unit tests: a store.Counters
// (the memory store: exact conditional updates) behind a per-key write capacity, a
// token bucket of perSecond writes per key (burst: one second's worth) on the instants
// the decisions carry. A decision writes every counter it touches, allowed or denied
// (a failed conditional write costs a write unit too); when one of them is out of
// capacity the whole call is refused with store.ErrThrottled and does nothing.
type capacityStore struct {
	store.Counters
	perSecond int64 // 0: no limit

	mu        sync.Mutex
	keys      map[string]*keyCapacity
	writes    int64
	throttled int64
	refuse    func(cs []store.Counter, cost int64) bool // refuses a call as throttled when set and true
}

// keyCapacity is one key's bucket: tokens in millionths of a write, as of at.
type keyCapacity struct {
	tokens, at int64
	writes     int64
	perSecond  map[int64]int64 // writes per whole second of the instants
}

func newCapacityStore(next store.Counters, perSecond int64) *capacityStore {
	return &capacityStore{Counters: next, perSecond: perSecond, keys: map[string]*keyCapacity{}}
}

func (c *capacityStore) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := c.charge(cs, now, cost); err != nil {
		return err
	}
	return c.Counters.Decide(ctx, cs, now, cost, outs)
}

// charge takes one write from every counter's bucket, or none when one is short.
func (c *capacityStore) charge(cs []store.Counter, now, cost int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	full := c.perSecond * 1_000_000
	ok := c.refuse == nil || !c.refuse(cs, cost)
	for _, ct := range cs {
		k := c.keys[ct.Key]
		if k == nil {
			k = &keyCapacity{tokens: full, at: now, perSecond: map[int64]int64{}}
			c.keys[ct.Key] = k
		}
		if now > k.at {
			k.tokens, k.at = min(k.tokens+(now-k.at)*c.perSecond, full), now
		}
		ok = ok && (c.perSecond == 0 || k.tokens >= 1_000_000)
	}
	if !ok {
		c.throttled++
		return fmt.Errorf("capacity model: %w", store.ErrThrottled)
	}
	for _, ct := range cs {
		k := c.keys[ct.Key]
		k.tokens -= 1_000_000
		k.writes++
		k.perSecond[now/1_000_000]++
		c.writes++
	}
	return nil
}

// peak returns the most writes any key took in one second.
func (c *capacityStore) peak() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var most int64
	for _, k := range c.keys {
		for _, n := range k.perSecond {
			most = max(most, n)
		}
	}
	return most
}

func (c *capacityStore) counts() (writes, throttled int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes, c.throttled
}
