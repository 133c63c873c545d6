package limiter

import "testing"

// TestDecideDoesNotAllocate pins the 0 allocs/op the benchmarks report: deciding on a
// key's existing state allocates nothing, for every algorithm and for a rule set (a
// sliding log allocates only while its ring buffer grows, which the warm-up covers).
func TestDecideDoesNotAllocate(t *testing.T) {
	for _, js := range []string{
		`{"algorithm": "fixed_window", "limit": 1000, "period": "1s"}`,
		`{"algorithm": "fixed_window", "limit": 1000, "period": "day"}`,
		`{"algorithm": "fixed_window", "limit": 1000, "period": "1s", "anchor": "first_request"}`,
		`{"algorithm": "sliding_log", "limit": 1000, "period": "1s"}`,
		`{"algorithm": "sliding_window", "limit": 1000, "period": "1s"}`,
		`{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`,
		`{"algorithm": "leaky_bucket", "limit": 1000, "period": "1s", "burst": 100}`,
	} {
		zone := FixedZone(mustLoad(t, "America/New_York"))
		alone := mustSet(t, zone, js)
		inSet := mustSet(t, zone, js, `{"name": "other", "algorithm": "token_bucket", "limit": 1000000, "period": "1s"}`)
		for _, s := range []*Set{alone, inSet} {
			states := s.NewStates()
			now := t0
			for range 5000 { // warm up: the log's ring reaches its steady size
				now += 700
				s.Decide(states, now, 1)
			}
			if n := testing.AllocsPerRun(2000, func() {
				now += 700
				s.Decide(states, now, 1)
			}); n != 0 {
				t.Errorf("%s (%d rules): %v allocations per decision, want 0", js, s.Len(), n)
			}
		}
	}
}
