package limiter

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestBucketDecideAgreesWithEvaluate replays random traces (costs 1 to 3, at and past
// the limit, and a clock that sometimes goes back) through a one-bucket set's one-step
// path (Set.Decide, bucketDecide) and through the general one (evaluate, consume when
// allowed, Combine): every Decision field and every state must be the same.
func TestBucketDecideAgreesWithEvaluate(t *testing.T) {
	for _, a := range []Algorithm{TokenBucket, LeakyBucket} {
		for seed := range uint64(40) {
			r := randomRule(rand.New(rand.NewPCG(seed, 3)), a)
			t.Run(fmt.Sprintf("%s/%d", a, seed), func(t *testing.T) {
				s, err := NewSet([]Rule{r}, nil)
				if err != nil {
					t.Fatal(err)
				}
				fast, slow := s.NewStates(), s.NewStates()
				for i, q := range randomTrace(seed, 400, 3) {
					at, cost := q.at-int64(i%7)*1_000, min(q.cost, r.Capacity())
					got, err := s.Decide(fast, at, cost)
					if err != nil {
						t.Fatal(err)
					}
					c := &s.rules[0]
					o := c.evaluate(&slow[0], nil, at, cost, false)
					if o.Allowed {
						c.consume(&slow[0], nil, at, cost)
					}
					if want := s.Combine([]Outcome{o}); got != want || bucketOf(fast[0]) != bucketOf(slow[0]) {
						t.Fatalf("%+v: request %d at %d cost %d: %+v (state %+v), the general path gives %+v (state %+v)",
							r, i, at, cost, got, fast[0], want, slow[0])
					}
				}
			})
		}
	}
}

// bucketOf is the part of st a bucket uses.
func bucketOf(st State) [3]int64 { return [3]int64{st.TAT, st.TATFrac, st.Last} }
