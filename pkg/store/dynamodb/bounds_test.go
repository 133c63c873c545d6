package dynamodb

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestBoundsTwoInstances replays the bounds traces (storetest.BoundsCases) through two
// Counters on one table, each with its own guesses, the requests going to one or the
// other: a write built from a stale guess must fail its condition at the rule bounds
// (limits and costs near 1e12, periods of 31 days) as it does within small ones, so
// that every decision is still the limiter's on the true state. A condition computed
// with an overflowed product would let a stale write through, which Decide reports.
func TestBoundsTwoInstances(t *testing.T) {
	first, client, table := newTestStore(t)
	second := NewCounters(client, table, CountersConfig{})
	instances := [2]*Counters{first, second}
	for _, c := range storetest.BoundsCases(1) {
		t.Run(c.Name, func(t *testing.T) {
			set := storetest.Set(t, nil, c.Rules...)
			for i := range set.Len() {
				if err := first.CheckRule(set.Rule(i)); err != nil {
					t.Skip(err) // a large sliding_log, which this backend refuses
				}
			}
			key, ref := storetest.Key(t, "k"), set.NewStates()
			for i, q := range c.Trace {
				// runs of one instance, then of the other
				decideAsLimiter(t, instances[(i/2+i/3)%2], key, set, ref, q.At, q.Cost)
			}
		})
	}
}

// TestStaleGuessAtTheBounds pins a regression: the condition of a sliding window's ADD
// weighed the previous window with prev x (period - elapsed), which overflowed int64
// for a previous count of 8e11 over 31 days and made the condition far looser than the
// limiter, so a write built from a stale guess went through where the true state
// denies. Two instances share a key; the second decides from a guess that misses the
// first's last admission.
func TestStaleGuessAtTheBounds(t *testing.T) {
	a, client, table := newTestStore(t)
	b := NewCounters(client, table, CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "sliding_window", "limit": 1000000000000, "period": "744h"}`)
	period := set.Rule(0).Period.Micros()
	ws := limiter.Micros(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	ws -= ws % period
	key, ref := storetest.Key(t, "k"), set.NewStates()
	for _, step := range []struct {
		by       *Counters
		at, cost int64
	}{
		{a, ws + 1, 800_000_000_000},          // the previous window
		{b, ws + period + 1, 1},               // b rolls the window: its guess has prev 8e11
		{a, ws + period + 2, 100_000_000_000}, // a admits 1e11 that b does not see
		{b, ws + period + 3, 150_000_000_000}, // b's guess allows it; the true state denies
	} {
		decideAsLimiter(t, step.by, key, set, ref, step.at, step.cost)
	}
	if ref[0].Count != 100_000_000_001 {
		t.Fatalf("the reference admitted %d in the current window, want 100000000001: the case no longer tests a stale guess", ref[0].Count)
	}
}

// decideAsLimiter decides a request through st and through the limiter on ref, and
// requires the same Decision.
func decideAsLimiter(t *testing.T, st *Counters, key string, set *limiter.Set, ref []limiter.State, at, cost int64) {
	t.Helper()
	want, err := set.Decide(ref, at, cost)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.DecideOne(context.Background(), st, key, set, at, cost)
	if err != nil {
		t.Fatalf("at %s, cost %d: %v", limiter.Time(at), cost, err)
	}
	if got != want {
		t.Fatalf("at %s, cost %d: store decided\n  %+v\nthe limiter decides\n  %+v", limiter.Time(at), cost, got, want)
	}
}
