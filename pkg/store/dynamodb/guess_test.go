package dynamodb

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

const guessRule = `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`

// TestGuessCacheKeepsRecent: passing the cache's bound forgets the least recently used
// key, not every key (a regression test: the cache was cleared when full).
func TestGuessCacheKeepsRecent(t *testing.T) {
	set := storetest.Set(t, nil, guessRule)
	c := newGuessCache(3)
	seen := []limiter.State{{TAT: 42}}
	for i := range 3 {
		c.put(fmt.Sprint("k", i), set, seen)
	}
	c.get("k0", set) // k0 is now the most recent, k1 the least
	c.put("k3", set, seen)
	if got := c.get("k0", set); got[0].TAT != 42 {
		t.Errorf("k0, used just before the bound was passed, was forgotten: %+v", got)
	}
	if got := c.get("k1", set); got[0].TAT != 0 {
		t.Errorf("k1, the least recently used, was kept: %+v", got)
	}
	if got := c.get("k3", set); got[0].TAT != 42 {
		t.Errorf("k3, just put, is missing: %+v", got)
	}
}

// TestGuessOfRecompiledRules: a guess is tied to its rules' content. A set compiled
// again from the same rules (as a gate does per tenant reload) reuses the guess, so
// the next decision is one write; a set of other rules does not.
func TestGuessOfRecompiledRules(t *testing.T) {
	st, _, _ := newTestStore(t)
	key := storetest.Key(t, "k")
	at := int64(1_800_000_000_000_000)
	for i := range 3 {
		if _, err := store.DecideOne(context.Background(), st, key, storetest.Set(t, nil, guessRule), at+int64(i), 1); err != nil {
			t.Fatal(err)
		}
	}
	before := st.Stats().Writes
	d, err := store.DecideOne(context.Background(), st, key, storetest.Set(t, nil, guessRule), at+3, 1)
	if err != nil || !d.Allowed {
		t.Fatalf("%+v, %v", d, err)
	}
	if w := st.Stats().Writes - before; w != 1 {
		t.Errorf("a recompiled set of the same rules took %d writes, want 1 (its guess reused)", w)
	}
	other := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 11, "period": "1s"}`)
	if got := st.guesses.get(key, other); got[0].TAT != 0 {
		t.Errorf("other rules got the guess %+v", got)
	}
}
