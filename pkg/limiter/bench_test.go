package limiter

import (
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// The peer: golang.org/x/time/rate's AllowN, a mutex-guarded float token bucket, on the
// same rate and burst as BenchmarkDecide/token_bucket, with time advancing 1us per call.
func BenchmarkXTimeRateAllowN(b *testing.B) {
	lim := rate.NewLimiter(rate.Limit(1000), 100)
	now := time.UnixMicro(t0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		lim.AllowN(now.Add(time.Duration(i)*time.Microsecond), 1)
	}
}

// BenchmarkTokenBucketStep is the pure token bucket step (no rule-set bookkeeping),
// the figure compared with x/time/rate's AllowN.
func BenchmarkTokenBucketStep(b *testing.B) {
	s := mustSet(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	c, st := &s.rules[0], State{}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := t0 + int64(i)
		if o := c.bucketEvaluate(&st, now, 1, false); o.Allowed {
			c.bucketConsume(&st, now, 1)
		}
	}
}

// BenchmarkDecide is Set.Decide, one rule of each algorithm, time advancing 1us per
// call so that traffic runs at the limit and decisions mix allows and denials.
func BenchmarkDecide(b *testing.B) {
	for _, bc := range []struct{ name, rule string }{
		{"fixed_window", `{"algorithm": "fixed_window", "limit": 1000, "period": "1s"}`},
		{"fixed_window_day", `{"algorithm": "fixed_window", "limit": 1000, "period": "day"}`},
		{"sliding_log", `{"algorithm": "sliding_log", "limit": 1000, "period": "1s"}`},
		{"sliding_window", `{"algorithm": "sliding_window", "limit": 1000, "period": "1s"}`},
		{"token_bucket", `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`},
		{"leaky_bucket", `{"algorithm": "leaky_bucket", "limit": 1000, "period": "1s", "burst": 100}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := mustSet(b, FixedZone(mustLoad(b, "America/New_York")), bc.rule)
			states := s.NewStates()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Decide(states, t0+int64(i), 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecideLocked is Set.Decide on the token bucket of BenchmarkXTimeRateAllowN
// (same rate, burst and clock), behind a sync.Mutex as rate.Limiter is behind its own:
// like with like, where Set.Decide alone takes no lock (its caller holds the states).
func BenchmarkDecideLocked(b *testing.B) {
	s := mustSet(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	states := s.NewStates()
	var mu sync.Mutex
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		mu.Lock()
		_, err := s.Decide(states, t0+int64(i), 1)
		mu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideRuleSet is a three-rule set: the per-request cost of rule sets.
func BenchmarkDecideRuleSet(b *testing.B) {
	s := mustSet(b, nil, `{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`,
		`{"name": "minute", "algorithm": "sliding_window", "limit": 3000, "period": "1m"}`,
		`{"name": "daily", "algorithm": "fixed_window", "limit": 100000, "period": "day"}`)
	states := s.NewStates()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Decide(states, t0+int64(i)*10, 1)
	}
}
