package limiter

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var algorithms = []Algorithm{FixedWindow, SlidingLog, SlidingWindow, TokenBucket, LeakyBucket}

// TestDecideAllIsOneSet pins DecideAll's contract: splitting a rule set into several
// sets (counters) and joining their decisions answers exactly as the one set would,
// request for request, and leaves the same states.
func TestDecideAllIsOneSet(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 2 + rng.IntN(MaxRules-1)
		rules := make([]Rule, n)
		for i := range rules {
			rules[i] = randomRule(rng, algorithms[rng.IntN(len(algorithms))])
			rules[i].Name = fmt.Sprintf("r%d", i)
		}
		cut := 1 + rng.IntN(n-1) // sets: rules[:cut] and rules[cut:]
		whole, a, b := mustNewSet(t, rules), mustNewSet(t, rules[:cut]), mustNewSet(t, rules[cut:])
		ref := whole.NewStates()
		states := [][]State{a.NewStates(), b.NewStates()}
		for i, r := range randomTrace(seed, 200, 3) {
			want, err := whole.Decide(ref, r.at, r.cost)
			if err != nil {
				continue // a cost above a capacity: both refuse it, checked below
			}
			var outs [2]Decision
			allowed, err := DecideAll([]*Set{a, b}, states, r.at, r.cost, outs[:])
			if err != nil {
				t.Fatalf("seed %d request %d: %v", seed, i, err)
			}
			got, at := Join(outs[:])
			if at == 1 {
				got.Rule += cut
			}
			if got != want || allowed != want.Allowed {
				t.Fatalf("seed %d request %d (cut %d): DecideAll+Join = %+v (allowed %v), Set.Decide = %+v", seed, i, cut, got, allowed, want)
			}
		}
		for j := range n {
			st := states[0]
			k := j
			if j >= cut {
				st, k = states[1], j-cut
			}
			if st[k].WindowStart != ref[j].WindowStart || st[k].Count != ref[j].Count || st[k].TAT != ref[j].TAT {
				t.Fatalf("seed %d rule %d: state %+v, the one set's %+v", seed, j, st[k], ref[j])
			}
		}
	}
}

// TestDecideAllDenialConsumesNothing: one set allows, the other denies; neither
// changes.
func TestDecideAllDenialConsumesNothing(t *testing.T) {
	wide := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`)
	narrow := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`)
	states := [][]State{wide.NewStates(), narrow.NewStates()}
	var outs [2]Decision
	sets := []*Set{wide, narrow}
	if ok, err := DecideAll(sets, states, t0, 1, outs[:]); !ok || err != nil {
		t.Fatalf("first request: allowed %v, %v", ok, err)
	}
	ok, err := DecideAll(sets, states, t0, 1, outs[:])
	if ok || err != nil || !outs[0].Allowed || outs[1].Allowed {
		t.Fatalf("second request: allowed %v (%+v), %v; want the narrow set alone to deny", ok, outs, err)
	}
	if states[0][0].Count != 1 {
		t.Fatalf("the wide set counted the denied request: count %d, want 1", states[0][0].Count)
	}
	if d, at := Join(outs[:]); at != 1 || d.Allowed || d.Remaining != 0 {
		t.Fatalf("Join = %+v at %d; want the narrow set's denial", d, at)
	}
}

func TestDecideAllBadInput(t *testing.T) {
	s := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 2, "period": "1s"}`)
	states := [][]State{s.NewStates()}
	for name, call := range map[string]func() error{
		"no sets":        func() error { _, err := DecideAll(nil, nil, t0, 1, nil); return err },
		"short outs":     func() error { _, err := DecideAll([]*Set{s}, states, t0, 1, nil); return err },
		"cost too large": func() error { _, err := DecideAll([]*Set{s}, states, t0, 3, make([]Decision, 1)); return err },
		"nil set":        func() error { _, err := DecideAll([]*Set{nil}, states, t0, 1, make([]Decision, 1)); return err },
		"time":           func() error { _, err := DecideAll([]*Set{s}, states, -1, 1, make([]Decision, 1)); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if states[0][0].Count != 0 {
		t.Fatal("bad input changed the state")
	}
}

func mustNewSet(tb testing.TB, rules []Rule) *Set {
	tb.Helper()
	s, err := NewSet(rules, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
