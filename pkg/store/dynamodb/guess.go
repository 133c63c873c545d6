package dynamodb

import (
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// guessCache remembers the last state seen per key: the guess the next write is
// built from. It is cleared when full, which costs at most one extra round trip per key.
type guessCache struct {
	mu  sync.Mutex
	max int
	m   map[string]guess
}

type guess struct {
	set    *limiter.Set
	states []limiter.State
}

func (c *guessCache) get(key string, set *limiter.Set) []limiter.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.m[key]; ok && g.set == set {
		return cloneStates(g.states)
	}
	return set.NewStates()
}

func (c *guessCache) put(key string, set *limiter.Set, states []limiter.State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = guess{set: set, states: cloneStates(states)}
}

func (c *guessCache) drop(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}
