package dynamodb

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// guessCache remembers the last state seen per key: the guess the next write is built
// from. It holds at most its bound of keys and forgets the least recently used first;
// a forgotten key costs at most one extra round trip. A guess is tied to its rules'
// content, not to the *limiter.Set that made it: a tenant recompiled with the same
// rules (a reload, another API key of the tenant) keeps its guesses.
type guessCache struct {
	lru *lru.Cache[string, guess]
}

type guess struct {
	set    *limiter.Set
	states []limiter.State
}

func newGuessCache(size int) *guessCache {
	c, _ := lru.New[string, guess](max(size, 1)) // it fails only for a size below 1
	return &guessCache{lru: c}
}

// get returns a copy of key's guess for set, or set's new states when there is none
// for rules like set's.
func (c *guessCache) get(key string, set *limiter.Set) []limiter.State {
	if g, ok := c.lru.Get(key); ok && limiter.SameRules(g.set, set) {
		return cloneStates(g.states)
	}
	return set.NewStates()
}

func (c *guessCache) put(key string, set *limiter.Set, states []limiter.State) {
	c.lru.Add(key, guess{set: set, states: cloneStates(states)})
}

func (c *guessCache) drop(key string) { c.lru.Remove(key) }
