package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// concurrencySets are rule sets with a concurrency rule: alone, with a lease that 16
// does not divide, and beside every other algorithm, one set per counter.
var concurrencySets = [][]string{
	{`{"name": "inflight", "algorithm": "concurrency", "limit": 3, "lease": "1s"}`},
	{`{"name": "odd", "algorithm": "concurrency", "limit": 5, "lease": "1.000007s"}`,
		`{"name": "log", "algorithm": "sliding_log", "limit": 9, "period": "700ms"}`,
		`{"name": "window", "algorithm": "fixed_window", "limit": 12, "period": "1s"}`},
	{`{"name": "sliding", "algorithm": "sliding_window", "limit": 10, "period": "1s"}`,
		`{"name": "tokens", "algorithm": "token_bucket", "limit": 8, "period": "1s", "burst": 6}`,
		`{"name": "slots", "algorithm": "concurrency", "limit": 4, "lease": "2s"}`,
		`{"name": "queue", "algorithm": "leaky_bucket", "limit": 9, "period": "1s", "burst": 5}`},
}

// RunConcurrency replays traces of sets with concurrency rules on st against
// pkg/limiter: each set on a key of its own, and the three decided as one request.
// Slots are never settled here (RunSettle settles them): they are freed by their leases
// ending, in the traces' idle gaps, and by Reset. Peek must then read as the limiter's.
func RunConcurrency(t *testing.T, st store.Counters) {
	for i, rules := range concurrencySets {
		t.Run(fmt.Sprint("set", i), func(t *testing.T) {
			replay(t, st, Key(t, "k"), Set(t, nil, rules...), nil, Trace(uint64(60+i), 400, 3, Burst))
		})
	}
	t.Run("Counters", func(t *testing.T) {
		cs := newCounters(t, "c", concurrencySets)
		trace := Trace(64, 400, 3, Burst)
		ref := replayCounters(t, st, cs, nil, trace)
		checkPeeks(t, st, cs, ref, trace[len(trace)-1].At+300_000) // some slots expired, others held
	})
	t.Run("Reset", func(t *testing.T) { testConcurrencyReset(t, st) })
}

// testConcurrencyReset: Reset frees every slot a key holds.
func testConcurrencyReset(t *testing.T, st store.Counters) {
	ctx := context.Background()
	set := Set(t, nil, concurrencySets[0]...)
	key := Key(t, "k")
	at := Trace(65, 1, 1, Burst)[0].At
	for i := range 4 {
		d, err := store.DecideOne(ctx, st, key, set, at, 1)
		if err != nil || d.Allowed != (i < 3) {
			t.Fatalf("request %d: %+v, %v; want the first 3 allowed", i, d, err)
		}
	}
	if err := st.Reset(ctx, key); err != nil {
		t.Fatal(err)
	}
	if d, err := st.Peek(ctx, key, set, at, nil); err != nil || d.Remaining != 3 {
		t.Fatalf("after Reset: %+v, %v; want every slot free", d, err)
	}
}
