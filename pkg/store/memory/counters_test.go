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

// colliding returns a store whose keys' hashes keep only the bits of mask: with 0,
// every key has the same hash and every lookup walks one chain.
func colliding(shards int, mask uint64) *Counters {
	s := NewCounters(CountersConfig{Shards: shards})
	s.mask = mask
	return s
}

// TestConformanceCollidingHashes runs the suite with every key's hash the same, and
// with two hashes over 64 shards: keys that collide still keep their own state.
func TestConformanceCollidingHashes(t *testing.T) {
	storetest.RunCounters(t, colliding(1, 0), storetest.CountersOptions{})
	storetest.RunCounters(t, colliding(64, 1<<63), storetest.CountersOptions{})
}

// TestCollidingKeys: three keys of one hash are decided, peeked at, counted and reset
// each on its own, whichever of them the chain holds first.
func TestCollidingKeys(t *testing.T) {
	s := colliding(1, 0)
	set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`)
	ctx := context.Background()
	for i, key := range []string{"a", "b", "c"} {
		for range i + 1 { // a once, b twice, c three times
			if _, err := store.DecideOne(ctx, s, key, set, at, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	remaining := func(key string) int64 {
		d, err := s.Peek(ctx, key, set, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d.Remaining
	}
	if a, b, c, n := remaining("a"), remaining("b"), remaining("c"), s.Len(); a != 4 || b != 3 || c != 2 || n != 3 {
		t.Fatalf("remaining a=%d b=%d c=%d, %d keys; want 4 3 2, 3 keys", a, b, c, n)
	}
	s.Reset(ctx, "b") // in the middle of the chain
	s.Reset(ctx, "x") // not held: changes nothing
	if a, b, c, n := remaining("a"), remaining("b"), remaining("c"), s.Len(); a != 4 || b != 5 || c != 2 || n != 2 {
		t.Fatalf("after Reset(b): remaining a=%d b=%d c=%d, %d keys; want 4 5 2, 2 keys", a, b, c, n)
	}
	if len(s.shards[0].keys) != 1 {
		t.Fatalf("%d slots for keys of one hash, want 1", len(s.shards[0].keys))
	}
}

// TestExactness: 48 goroutines, one key and three API keys of one tenant (scopes).
func TestExactness(t *testing.T) {
	storetest.ExactnessInProcess(t, NewCounters(CountersConfig{}))
	storetest.ExactnessInProcess(t, NewCounters(CountersConfig{Shards: 1}))
}

var at = limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

// TestIdleKeysAreSwept fills a store with keys whose state goes idle, then adds more
// keys later: the sweep keeps the store near the live keys rather than every key seen,
// also when the keys' hashes collide (16 hashes for 20480 keys).
func TestIdleKeysAreSwept(t *testing.T) {
	t.Run("distinct", func(t *testing.T) { testIdleKeysAreSwept(t, NewCounters(CountersConfig{Shards: 1})) })
	t.Run("colliding", func(t *testing.T) { testIdleKeysAreSwept(t, colliding(1, 15)) })
}

func testIdleKeysAreSwept(t *testing.T, s *Counters) {
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

// TestPeekWithAnotherSetChangesNothing: a Peek with a set of other rules (a usage read
// compiled from a newer tenant, say) reads the key without moving it to that set: the
// rules it lacks keep their state. It once dropped them, resetting the key's counter.
func TestPeekWithAnotherSetChangesNothing(t *testing.T) {
	ctx := context.Background()
	minute := limiter.Rule{Name: "minute", Algorithm: limiter.FixedWindow, Limit: 2, Period: limiter.Every(time.Minute)}
	hour := limiter.Rule{Name: "hour", Algorithm: limiter.FixedWindow, Limit: 100, Period: limiter.Every(time.Hour)}
	both, err := limiter.NewSet([]limiter.Rule{minute, hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hourOnly, err := limiter.NewSet([]limiter.Rule{hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewCounters(CountersConfig{})
	now := limiter.Micros(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	for range 2 {
		if d, err := s.DecideOne(ctx, "k", both, now, 1); err != nil || !d.Allowed {
			t.Fatalf("DecideOne: %+v, %v", d, err)
		}
	}
	if d, err := s.Peek(ctx, "k", hourOnly, now, nil); err != nil || d.Remaining != 98 {
		t.Fatalf("Peek with the hour alone: %+v, %v; want 98 remaining", d, err)
	}
	if d, err := s.DecideOne(ctx, "k", both, now, 1); err != nil || d.Allowed {
		t.Errorf("the third request of the minute after a Peek: %+v, %v; want denied", d, err)
	}
}

func TestSettle(t *testing.T) {
	storetest.RunSettle(t, NewCounters(CountersConfig{}))
	storetest.RunSettle(t, NewCounters(CountersConfig{Shards: 1}))
}
