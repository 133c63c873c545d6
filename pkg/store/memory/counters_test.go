package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.RunCounters(t, NewCounters(CountersConfig{}), storetest.CountersOptions{})
}

func TestConformanceOneShard(t *testing.T) {
	storetest.RunCounters(t, NewCounters(CountersConfig{Shards: 1}), storetest.CountersOptions{})
}

// TestExactness: 48 goroutines, one key and three API keys of one tenant (scopes).
func TestExactness(t *testing.T) {
	storetest.ExactnessInProcess(t, NewCounters(CountersConfig{}))
	storetest.ExactnessInProcess(t, NewCounters(CountersConfig{Shards: 1}))
}

var at = limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

// TestIdleKeysAreSwept fills a store with keys whose state goes idle, then adds more
// keys later: the sweep keeps the store near the live keys rather than every key seen.
func TestIdleKeysAreSwept(t *testing.T) {
	s := NewCounters(CountersConfig{Shards: 1})
	set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`)
	ctx := context.Background()
	for i := range 10 * minSweep {
		if _, err := store.DecideOne(ctx, s, fmt.Sprint("old", i), set, at, 1); err != nil {
			t.Fatal(err)
		}
	}
	later := at + 2_000_000 // every old window has ended
	for i := range 10 * minSweep {
		store.DecideOne(ctx, s, fmt.Sprint("new", i), set, later, 1)
	}
	if n := s.Len(); n > 2*10*minSweep/2+minSweep {
		t.Fatalf("%d keys held after 10240 went idle and 10240 are live: the sweep does not bound memory", n)
	}
	// A key in use survives the sweep.
	d, _ := store.DecideOne(ctx, s, "new0", set, later, 1)
	if d.Remaining != 3 {
		t.Fatalf("live key lost its state: %+v", d)
	}
}

// TestHotPathDoesNotAllocate: a known key with the same set allocates nothing.
func TestHotPathDoesNotAllocate(t *testing.T) {
	s := NewCounters(CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 10}`,
		`{"algorithm": "sliding_window", "limit": 1000, "period": "1m"}`)
	ctx := context.Background()
	cs := []store.Counter{{Key: "k", Set: set}, {Key: "k2", Set: set}}
	var outs [2]limiter.Decision
	s.Decide(ctx, cs, at, 1, outs[:])
	now := at
	if n := testing.AllocsPerRun(1000, func() {
		now++
		s.Decide(ctx, cs, now, 1, outs[:])
	}); n != 0 {
		t.Fatalf("%v allocations per decision, want 0", n)
	}
}

// TestDecideOneThroughTheInterfaceDoesNotAllocate: store.DecideOne on a store.Counters
// holding a memory store takes the OneDecider path, whose arguments do not escape.
func TestDecideOneThroughTheInterfaceDoesNotAllocate(t *testing.T) {
	var s store.Counters = NewCounters(CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 10}`)
	ctx := context.Background()
	store.DecideOne(ctx, s, "k", set, at, 1)
	now := at
	if n := testing.AllocsPerRun(1000, func() {
		now++
		if _, err := store.DecideOne(ctx, s, "k", set, now, 1); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per decision through store.DecideOne, want 0", n)
	}
}
