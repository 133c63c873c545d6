package limiter

import (
	"testing"
	"time"
)

// TestIdleAtForgetsNothingInUse checks, on random traces, that from IdleAt on a zeroed
// state decides exactly as the real one: forgetting the key changes nothing.
func TestIdleAtForgetsNothingInUse(t *testing.T) {
	for _, js := range []string{
		`{"algorithm": "fixed_window", "limit": 3, "period": "1s"}`,
		`{"algorithm": "fixed_window", "limit": 3, "period": "1s", "anchor": "first_request"}`,
		`{"algorithm": "fixed_window", "limit": 3, "period": "day"}`,
		`{"algorithm": "sliding_log", "limit": 3, "period": "1s"}`,
		`{"algorithm": "sliding_window", "limit": 3, "period": "1s"}`,
		`{"algorithm": "token_bucket", "limit": 3, "period": "1s", "burst": 5}`,
		`{"algorithm": "leaky_bucket", "limit": 3, "period": "1s", "burst": 5}`,
	} {
		s := mustSet(t, nil, js)
		states := s.NewStates()
		for _, q := range randomTrace(3, 200, 2) {
			s.Decide(states, q.at, q.cost)
			idle := s.IdleAt(states)
			if idle == 0 {
				continue
			}
			kept, _ := s.Decide(cloneStates(states), idle, 1)
			fresh, _ := s.Decide(s.NewStates(), idle, 1)
			if kept.Allowed != fresh.Allowed || kept.Remaining != fresh.Remaining {
				t.Fatalf("%s: at IdleAt %d kept state gives %+v, a new key %+v", js, idle, kept, fresh)
			}
		}
	}
}

func TestStateID(t *testing.T) {
	a := Rule{Name: "daily", Algorithm: FixedWindow, Limit: 10, Period: Calendar(Day)}
	b := a
	b.Limit = 20
	if a.StateID() != b.StateID() {
		t.Errorf("a window's limit change must keep its state: %q vs %q", a.StateID(), b.StateID())
	}
	tb := Rule{Algorithm: TokenBucket, Limit: 10, Period: Every(time.Second)}
	tb2 := tb
	tb2.Limit = 20
	if tb.StateID() == tb2.StateID() {
		t.Errorf("a bucket's limit change must start afresh: %q", tb.StateID())
	}
}
