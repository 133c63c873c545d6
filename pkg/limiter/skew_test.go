package limiter

import (
	"math/rand/v2"
	"testing"
)

// TestClockSkew checks the clock-skew rule on every algorithm: after state was updated
// at instant a, a request at a-δ (an instance whose clock is behind) gets exactly what a
// request at a gets, its retry measured from its own clock.
func TestClockSkew(t *testing.T) {
	rules := []string{
		`{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`,
		`{"algorithm": "fixed_window", "limit": 5, "period": "1s", "anchor": "first_request"}`,
		`{"algorithm": "sliding_log", "limit": 5, "period": "1s"}`,
		`{"algorithm": "sliding_window", "limit": 5, "period": "1s"}`,
		`{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 3}`,
		`{"algorithm": "leaky_bucket", "limit": 5, "period": "1s", "burst": 3}`,
	}
	for _, js := range rules {
		s := mustSet(t, nil, js)
		rng := rand.New(rand.NewPCG(1, 2))
		states := s.NewStates()
		latest := int64(0)
		for _, q := range randomTrace(9, 500, 1) {
			if d, _ := s.Decide(states, q.at, 1); d.Allowed {
				latest = q.at
			}
			if latest == 0 {
				continue
			}
			delta := 1 + rng.Int64N(2_000_000)
			onTime, _ := s.Decide(cloneStates(states), latest, 1)
			early, _ := s.Decide(cloneStates(states), latest-delta, 1)
			want := onTime
			if !want.Allowed {
				want.RetryAfter += delta
			}
			if early != want {
				t.Fatalf("%s: at %d-%d got %+v, want %+v", js, latest, delta, early, want)
			}
		}
	}
}
