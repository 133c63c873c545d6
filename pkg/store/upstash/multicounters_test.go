package upstash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// newCounters returns counters on fresh keys, one per rule list.
func newCounters(t *testing.T, rules ...[]string) []store.Counter {
	cs := make([]store.Counter, len(rules))
	for i, r := range rules {
		cs[i] = store.Counter{Key: storetest.Key(t, fmt.Sprint("c", i)), Set: storetest.Set(t, nil, r...)}
	}
	return cs
}

// TestStoreCountersTrace replays 3,000 requests of costs 1 to 3 over three counters
// with different rule sets (every algorithm, two sliding logs) through the store and
// through limiter.DecideAll, requiring identical decisions for every counter. Most
// requests take the three counters in order; one in five takes a random subset in a
// random order, as requests of other routes share some of the counters.
func TestStoreCountersTrace(t *testing.T) {
	st := newTestStore(t, nil)
	ctx := context.Background()
	all := newCounters(t,
		[]string{`{"name": "route", "algorithm": "sliding_window", "limit": 9, "period": "1s"}`,
			`{"name": "spike", "algorithm": "fixed_window", "limit": 4, "period": "700ms", "anchor": "first_request"}`},
		[]string{`{"name": "tenant", "algorithm": "token_bucket", "limit": 7, "period": "1s", "burst": 5}`,
			`{"name": "tenant-log", "algorithm": "sliding_log", "limit": 8, "period": "2s"}`},
		[]string{`{"name": "queue", "algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 4}`,
			`{"name": "key", "algorithm": "fixed_window", "limit": 12, "period": "3s"}`,
			`{"name": "key-log", "algorithm": "sliding_log", "limit": 5, "period": "500ms"}`})
	ref := make([][]limiter.State, len(all))
	for i, c := range all {
		ref[i] = c.Set.NewStates()
	}
	rng := rand.New(rand.NewPCG(14, 3))
	var allowed, mixed, denied int
	for n, r := range storetest.Trace(14, 3000, 3, storetest.Burst) {
		pick := []int{0, 1, 2}
		if rng.IntN(5) == 0 {
			rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
			pick = pick[:1+rng.IntN(len(pick))]
		}
		cs, sets, states := make([]store.Counter, len(pick)), make([]*limiter.Set, len(pick)), make([][]limiter.State, len(pick))
		for i, k := range pick {
			cs[i], sets[i], states[i] = all[k], all[k].Set, ref[k]
		}
		want, got := make([]limiter.Decision, len(cs)), make([]limiter.Decision, len(cs))
		ok, err := limiter.DecideAll(sets, states, r.At, r.Cost, want)
		if err != nil {
			t.Fatalf("reference, request %d: %v", n, err)
		}
		if err := st.Decide(ctx, cs, r.At, r.Cost, got); err != nil {
			t.Fatalf("request %d (at %d, cost %d, counters %v): %v", n, r.At, r.Cost, pick, err)
		}
		for i := range cs {
			if got[i] != want[i] {
				t.Fatalf("request %d (at %d, cost %d, counters %v), counter %d: store decided\n  %+v\nthe limiter decides\n  %+v", n, r.At, r.Cost, pick, pick[i], got[i], want[i])
			}
		}
		switch {
		case ok:
			allowed++
		case anyAllowed(want):
			mixed++
		default:
			denied++
		}
	}
	if allowed < 100 || mixed < 100 || denied < 100 {
		t.Fatalf("%d allowed, %d denied by some counters only, %d by all: the trace does not exercise every case", allowed, mixed, denied)
	}
}

func anyAllowed(ds []limiter.Decision) bool {
	for _, d := range ds {
		if d.Allowed {
			return true
		}
	}
	return false
}

// TestStoreCountersAtomic: counter A's rules all allow, counter B's window denies;
// whichever comes first, the denied request leaves every rule of both counters as it
// was (Peek, every algorithm, sliding log included), and each counter's Decision is
// DecideAll's.
func TestStoreCountersAtomic(t *testing.T) {
	st := newTestStore(t, nil)
	ctx := context.Background()
	at := storetest.Trace(7, 1, 1, storetest.Burst)[0].At
	for _, order := range []string{"allowing first", "denying first"} {
		t.Run(order, func(t *testing.T) {
			cs := newCounters(t,
				[]string{`{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`,
					`{"algorithm": "sliding_window", "limit": 10, "period": "1m"}`,
					`{"algorithm": "sliding_log", "limit": 10, "period": "1m"}`,
					`{"algorithm": "token_bucket", "limit": 10, "period": "1m"}`,
					`{"algorithm": "leaky_bucket", "limit": 10, "period": "1m", "burst": 10}`},
				[]string{`{"algorithm": "sliding_log", "limit": 10, "period": "1m"}`,
					`{"algorithm": "fixed_window", "limit": 2, "period": "1m"}`})
			if order == "denying first" {
				cs[0], cs[1] = cs[1], cs[0]
			}
			sets, ref := []*limiter.Set{cs[0].Set, cs[1].Set}, [][]limiter.State{cs[0].Set.NewStates(), cs[1].Set.NewStates()}
			want, got := make([]limiter.Decision, 2), make([]limiter.Decision, 2)
			for i, wantAllowed := range []bool{true, true, false, false} {
				before := peekAll(t, st, cs, at)
				allowed, _ := limiter.DecideAll(sets, ref, at, 1, want)
				if err := st.Decide(ctx, cs, at, 1, got); err != nil {
					t.Fatal(err)
				}
				if allowed != wantAllowed || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("request %d: store decided %+v, the limiter %+v (allowed %v, want %v)", i, got, want, allowed, wantAllowed)
				}
				if after := peekAll(t, st, cs, at); !allowed && after != before {
					t.Fatalf("request %d was denied but changed the counters:\nbefore %s\nafter  %s", i, before, after)
				}
			}
			if d, _ := limiter.Join(got); d.Allowed || d.Limit != 2 {
				t.Fatalf("the request's answer %+v, want the window of 2 denying", d)
			}
		})
	}
}

// peekAll prints every rule's Outcome of every counter at now.
func peekAll(t *testing.T, st *Counters, cs []store.Counter, now int64) string {
	t.Helper()
	s := ""
	for _, c := range cs {
		outs := make([]limiter.Outcome, c.Set.Len())
		if _, err := st.Peek(context.Background(), c.Key, c.Set, now, outs); err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprintf("%+v ", outs)
	}
	return s
}
