package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// A request's counters, as a tenant with a route rule, tenant-scope rules and a
// key-scope rule has them: three keys, three rule sets, every algorithm among them.
var counterRules = [][]string{
	{`{"name": "route", "algorithm": "sliding_window", "limit": 6, "period": "1s"}`},
	{`{"name": "daily", "algorithm": "fixed_window", "limit": 40, "period": "10s"}`,
		`{"name": "burst", "algorithm": "token_bucket", "limit": 9, "period": "1s", "burst": 5}`},
	{`{"name": "log", "algorithm": "sliding_log", "limit": 4, "period": "700ms"}`,
		`{"name": "queue", "algorithm": "leaky_bucket", "limit": 7, "period": "1s", "burst": 4}`},
}

// newCounters returns a counter of each rule set of rules, on fresh keys named prefix
// and its index.
func newCounters(t *testing.T, prefix string, rules [][]string) []store.Counter {
	cs := make([]store.Counter, len(rules))
	for i, rs := range rules {
		cs[i] = store.Counter{Key: Key(t, fmt.Sprint(prefix, i)), Set: Set(t, nil, rs...)}
	}
	return cs
}

// newStates returns the reference states of new keys for cs.
func newStates(cs []store.Counter) [][]limiter.State {
	ref := make([][]limiter.State, len(cs))
	for i, c := range cs {
		ref[i] = c.Set.NewStates()
	}
	return ref
}

// replayCounters decides reqs over cs through store and through limiter.DecideAll,
// requiring identical decisions for every counter, and returns the reference states
// (ref, or new keys' when ref is nil).
func replayCounters(t *testing.T, st store.Counters, cs []store.Counter, ref [][]limiter.State, reqs []Request) [][]limiter.State {
	t.Helper()
	if ref == nil {
		ref = newStates(cs)
	}
	for i, r := range reqs {
		decideBoth(t, st, cs, ref, i, r)
	}
	return ref
}

// decideBoth decides request i over cs through store and through limiter.DecideAll on
// ref, requiring identical decisions for every counter, and reports whether it was
// allowed.
func decideBoth(t *testing.T, st store.Counters, cs []store.Counter, ref [][]limiter.State, i int, r Request) bool {
	t.Helper()
	sets := make([]*limiter.Set, len(cs))
	for k, c := range cs {
		sets[k] = c.Set
	}
	want, got := make([]limiter.Decision, len(cs)), make([]limiter.Decision, len(cs))
	if _, err := limiter.DecideAll(sets, ref, r.At, r.Cost, want); err != nil {
		t.Fatalf("reference, request %d: %v", i, err)
	}
	if err := st.Decide(context.Background(), cs, r.At, r.Cost, got); err != nil {
		t.Fatalf("request %d (at %d, cost %d): %v", i, r.At, r.Cost, err)
	}
	for k := range cs {
		if got[k] != want[k] {
			t.Fatalf("request %d (at %s, cost %d), counter %d: store decided\n  %+v\nthe limiter decides\n  %+v",
				i, limiter.Time(r.At).Format(time.RFC3339Nano), r.Cost, k, got[k], want[k])
		}
	}
	d, _ := limiter.Join(want)
	return d.Allowed
}

// checkPeeks requires every counter of cs to peek at at as the reference states do.
func checkPeeks(t *testing.T, st store.Counters, cs []store.Counter, ref [][]limiter.State, at int64) {
	t.Helper()
	for i, c := range cs {
		want, _ := c.Set.Peek(ref[i], at, nil)
		if got, err := st.Peek(context.Background(), c.Key, c.Set, at, nil); err != nil || got != want {
			t.Fatalf("counter %d peeks %+v (%v), want %+v", i, got, err, want)
		}
	}
}

// testCounters replays a trace over three counters decided as one, and checks that
// each counter then reads as the reference's (its state is its own).
func testCounters(t *testing.T, st store.Counters) {
	cs := newCounters(t, "c", counterRules)
	trace := Trace(21, 400, 3, Burst)
	ref := replayCounters(t, st, cs, nil, trace)
	checkPeeks(t, st, cs, ref, trace[len(trace)-1].At)
}

// testAtomicity: when one counter allows and another denies, the request consumes
// nothing from either, whichever comes first.
func testAtomicity(t *testing.T, st store.Counters) {
	ctx := context.Background()
	at := Trace(3, 1, 1, Burst)[0].At
	wide := Set(t, nil, `{"name": "wide", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	narrow := Set(t, nil, `{"name": "narrow", "algorithm": "fixed_window", "limit": 1, "period": "1m"}`)
	for _, order := range []string{"allowing first", "denying first"} {
		t.Run(order, func(t *testing.T) {
			w, n := store.Counter{Key: Key(t, "wide"), Set: wide}, store.Counter{Key: Key(t, "narrow"), Set: narrow}
			cs := []store.Counter{w, n}
			if order == "denying first" {
				cs = []store.Counter{n, w}
			}
			outs := make([]limiter.Decision, 2)
			for i, wantAllowed := range []bool{true, false, false} {
				if err := st.Decide(ctx, cs, at, 1, outs); err != nil {
					t.Fatal(err)
				}
				if d, _ := limiter.Join(outs); d.Allowed != wantAllowed {
					t.Fatalf("request %d: allowed %v, want %v", i, d.Allowed, wantAllowed)
				}
			}
			d, err := st.Peek(ctx, w.Key, wide, at, nil)
			if err != nil || d.Remaining != 9 {
				t.Fatalf("the wide counter after one allowed and two denied requests: %+v, %v; want 9 remaining", d, err)
			}
		})
	}
}

// testCounterInput: malformed counter lists are input errors that change nothing.
func testCounterInput(t *testing.T, st store.Counters) {
	cs := newCounters(t, "c", counterRules)
	trace := Trace(6, 20, 1, Burst)
	ref := replayCounters(t, st, cs, nil, trace[:10])
	at := trace[10].At
	dup := []store.Counter{cs[0], cs[1], cs[0]}
	many := make([]store.Counter, store.MaxCounters+1)
	for i := range many {
		many[i] = store.Counter{Key: Key(t, fmt.Sprint("m", i)), Set: cs[0].Set}
	}
	for _, bad := range []struct {
		name string
		cs   []store.Counter
		outs int
		is   error
	}{
		{"no counters", nil, 0, nil},
		{"too many counters", many, len(many), nil},
		{"a key twice", dup, 3, store.ErrKey},
		{"outs too short", cs, 2, nil},
		{"one bad key", []store.Counter{cs[0], {Key: "", Set: cs[1].Set}}, 2, store.ErrKey},
		{"a cost above one counter's capacity", cs, 3, limiter.ErrCostExceedsCapacity},
	} {
		cost := int64(1)
		if bad.is == limiter.ErrCostExceedsCapacity {
			cost = 5 // the log holds 4
		}
		err := st.Decide(context.Background(), bad.cs, at, cost, make([]limiter.Decision, bad.outs))
		if err == nil || bad.is != nil && !errors.Is(err, bad.is) {
			t.Errorf("%s: error %v, want one (wrapping %v)", bad.name, err, bad.is)
		}
	}
	replayCounters(t, st, cs, ref, trace[10:]) // nothing changed
}
