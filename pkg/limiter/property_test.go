package limiter

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

type req struct{ at, cost int64 }

// randomTrace returns n requests from t0 on, in non-decreasing time: bursts at one
// instant, short gaps and long idle stretches, costs from 1 to maxCost.
func randomTrace(seed uint64, n int, maxCost int64) []req {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]req, n)
	at := t0 + rng.Int64N(1_000_000)
	for i := range out {
		switch rng.IntN(10) {
		case 0, 1, 2: // same instant
		case 3, 4, 5, 6:
			at += rng.Int64N(50_000)
		case 7, 8:
			at += rng.Int64N(1_000_000)
		default:
			at += rng.Int64N(10_000_000)
		}
		out[i] = req{at: at, cost: 1 + rng.Int64N(maxCost)}
	}
	return out
}

// randomRule returns a small random rule of algorithm a.
func randomRule(rng *rand.Rand, a Algorithm) Rule {
	periods := []int64{1_000, 7_000, 100_000, 333_333, 1_000_000, 3_000_000}
	r := Rule{Algorithm: a, Limit: 1 + rng.Int64N(20), Period: Period{micros: periods[rng.IntN(len(periods))]}}
	if r.IsBucket() {
		r.Burst = 1 + rng.Int64N(30)
	}
	return r.Normalized()
}

// naive is a deliberately simple model of one algorithm, written from the definitions.
type naive interface {
	allows(at, cost int64) (allowed, ambiguous bool)
	admit(at, cost int64)
}

type naiveFixed struct {
	limit, period int64
	counts        map[int64]int64
}

func (n *naiveFixed) allows(at, cost int64) (bool, bool) {
	return n.counts[at/n.period]+cost <= n.limit, false
}
func (n *naiveFixed) admit(at, cost int64) { n.counts[at/n.period] += cost }

type naiveLog struct {
	limit, period int64
	admitted      []req
}

func (n *naiveLog) used(at int64) (sum int64) {
	for _, r := range n.admitted {
		if r.at > at-n.period && r.at <= at {
			sum += r.cost
		}
	}
	return sum
}
func (n *naiveLog) allows(at, cost int64) (bool, bool) { return n.used(at)+cost <= n.limit, false }
func (n *naiveLog) admit(at, cost int64)               { n.admitted = append(n.admitted, req{at, cost}) }

// naiveBucket refills a float token count continuously; decisions within 1e-6 of a
// token of the edge are reported ambiguous.
type naiveBucket struct {
	rate, burst float64 // tokens per microsecond, capacity
	tokens      float64
	last        int64
	started     bool
}

func (n *naiveBucket) refill(at int64) float64 {
	if !n.started {
		return n.burst
	}
	return math.Min(n.burst, n.tokens+float64(at-n.last)*n.rate)
}
func (n *naiveBucket) allows(at, cost int64) (bool, bool) {
	tok := n.refill(at)
	return tok >= float64(cost), math.Abs(tok-float64(cost)) < 1e-6
}
func (n *naiveBucket) admit(at, cost int64) {
	n.tokens, n.last, n.started = n.refill(at)-float64(cost), at, true
}

// naiveSliding evaluates the textbook prev*(1-e/period) + curr + cost - 1 < limit in
// exact rationals.
type naiveSliding struct {
	limit, period int64
	counts        map[int64]int64
}

func (n *naiveSliding) allows(at, cost int64) (bool, bool) {
	w := at / n.period
	e := big.NewRat(at%n.period, n.period)
	weight := new(big.Rat).Sub(big.NewRat(1, 1), e)
	lhs := new(big.Rat).Mul(big.NewRat(n.counts[w-1], 1), weight)
	lhs.Add(lhs, big.NewRat(n.counts[w]+cost-1, 1))
	return lhs.Cmp(big.NewRat(n.limit, 1)) < 0, false
}
func (n *naiveSliding) admit(at, cost int64) { n.counts[at/n.period] += cost }

func newNaive(r Rule) naive {
	p := r.Period.Micros()
	switch r.Algorithm {
	case FixedWindow:
		return &naiveFixed{limit: r.Limit, period: p, counts: map[int64]int64{}}
	case SlidingLog:
		return &naiveLog{limit: r.Limit, period: p}
	case SlidingWindow:
		return &naiveSliding{limit: r.Limit, period: p, counts: map[int64]int64{}}
	}
	return &naiveBucket{rate: float64(r.Limit) / float64(p), burst: float64(r.Burst)}
}

var allAlgorithms = []Algorithm{FixedWindow, SlidingLog, SlidingWindow, TokenBucket, LeakyBucket}

// TestAgreesWithNaive replays random traces through each algorithm and a naive model
// written from its definition, and requires the same decision for every request.
func TestAgreesWithNaive(t *testing.T) {
	for _, a := range allAlgorithms {
		for seed := range uint64(40) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(a))))
			r := randomRule(rng, a)
			t.Run(fmt.Sprintf("%s/%d", a, seed), func(t *testing.T) {
				s, err := NewSet([]Rule{r}, nil)
				if err != nil {
					t.Fatal(err)
				}
				model, states := newNaive(r), s.NewStates()
				for i, q := range randomTrace(seed, 400, 3) {
					cost := min(q.cost, r.Capacity())
					d, err := s.Decide(states, q.at, cost)
					if err != nil {
						t.Fatal(err)
					}
					want, ambiguous := model.allows(q.at, cost)
					if !ambiguous && d.Allowed != want {
						t.Fatalf("%+v: request %d at %d cost %d: allowed=%v, naive says %v", r, i, q.at, cost, d.Allowed, want)
					}
					if d.Allowed {
						model.admit(q.at, cost)
					}
				}
			})
		}
	}
}

// TestNeverAdmitsMoreThanDefined checks each algorithm's bound over every window of
// random traces: fixed and sliding windows at most limit per aligned window, the log at
// most limit in every (t-period, t], the buckets at most burst + elapsed*limit/period
// between any two admitted requests.
func TestNeverAdmitsMoreThanDefined(t *testing.T) {
	for _, a := range allAlgorithms {
		for seed := range uint64(30) {
			rng := rand.New(rand.NewPCG(seed, 99))
			r := randomRule(rng, a)
			s, _ := NewSet([]Rule{r}, nil)
			states := s.NewStates()
			var admitted []req
			for _, q := range randomTrace(seed+1000, 300, 3) {
				cost := min(q.cost, r.Capacity())
				if d, _ := s.Decide(states, q.at, cost); d.Allowed {
					admitted = append(admitted, req{q.at, cost})
				}
			}
			if err := checkBound(r, admitted); err != nil {
				t.Errorf("%s seed %d %+v: %v", a, seed, r, err)
			}
		}
	}
}

func checkBound(r Rule, admitted []req) error {
	p := r.Period.Micros()
	switch r.Algorithm {
	case FixedWindow, SlidingWindow:
		perWindow := map[int64]int64{}
		for _, q := range admitted {
			if perWindow[q.at/p] += q.cost; perWindow[q.at/p] > r.Limit {
				return fmt.Errorf("window %d admitted %d", q.at/p, perWindow[q.at/p])
			}
		}
	case SlidingLog:
		for _, end := range admitted {
			sum := int64(0)
			for _, q := range admitted {
				if q.at > end.at-p && q.at <= end.at {
					sum += q.cost
				}
			}
			if sum > r.Limit {
				return fmt.Errorf("(%d, %d] admitted %d", end.at-p, end.at, sum)
			}
		}
	default:
		for i := range admitted {
			sum := int64(0)
			for j := i; j < len(admitted); j++ {
				sum += admitted[j].cost
				// sum <= burst + elapsed*limit/period, in integers.
				if sum*p > r.Burst*p+(admitted[j].at-admitted[i].at)*r.Limit {
					return fmt.Errorf("%d admitted between %d and %d", sum, admitted[i].at, admitted[j].at)
				}
			}
		}
	}
	return nil
}

// TestRetryAfterIsExact checks every denial of random traces: one microsecond before
// RetryAfter the same request is still denied, at RetryAfter it is allowed.
func TestRetryAfterIsExact(t *testing.T) {
	for _, a := range allAlgorithms {
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 5))
			r := randomRule(rng, a)
			s, _ := NewSet([]Rule{r}, nil)
			states := s.NewStates()
			for _, q := range randomTrace(seed+77, 300, 3) {
				cost := min(q.cost, r.Capacity())
				d, _ := s.Decide(states, q.at, cost)
				if d.Allowed {
					continue
				}
				if d.RetryAfter <= 0 {
					t.Fatalf("%+v at %d: denied with retry after %d", r, q.at, d.RetryAfter)
				}
				if early, _ := s.Decide(cloneStates(states), q.at+d.RetryAfter-1, cost); early.Allowed {
					t.Fatalf("%+v at %d cost %d: allowed 1us before retry after %d", r, q.at, cost, d.RetryAfter)
				}
				if onTime, _ := s.Decide(cloneStates(states), q.at+d.RetryAfter, cost); !onTime.Allowed {
					t.Fatalf("%+v at %d cost %d: still denied at retry after %d", r, q.at, cost, d.RetryAfter)
				}
			}
		}
	}
}

// TestRuleSetAllOrNothing decides random traces through a set of every algorithm and
// through each rule alone: the set allows iff every rule alone would, consumes from
// every rule only then, and reports the minimum remaining.
func TestRuleSetAllOrNothing(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		rules := make([]Rule, len(allAlgorithms))
		singles := make([]*Set, len(allAlgorithms))
		singleStates := make([][]State, len(allAlgorithms))
		for i, a := range allAlgorithms {
			rules[i] = randomRule(rng, a)
			rules[i].Name = fmt.Sprint("r", i)
			singles[i], _ = NewSet([]Rule{rules[i]}, nil)
			singleStates[i] = singles[i].NewStates()
		}
		set, err := NewSet(rules, nil)
		if err != nil {
			t.Fatal(err)
		}
		states := set.NewStates()
		for _, q := range randomTrace(seed, 300, 1) {
			want, minRemaining := true, int64(math.MaxInt64)
			for i := range singles {
				d, _ := singles[i].Decide(cloneStates(singleStates[i]), q.at, 1)
				want = want && d.Allowed
				if d.Allowed {
					minRemaining = min(minRemaining, d.Remaining)
				} else {
					minRemaining = min(minRemaining, d.Remaining)
				}
			}
			d, _ := set.Decide(states, q.at, 1)
			if d.Allowed != want {
				t.Fatalf("seed %d at %d: set allowed=%v, rules alone say %v", seed, q.at, d.Allowed, want)
			}
			if want {
				for i := range singles {
					singles[i].Decide(singleStates[i], q.at, 1)
				}
				if d.Remaining != minRemaining {
					t.Fatalf("seed %d at %d: remaining %d, want the minimum %d", seed, q.at, d.Remaining, minRemaining)
				}
			}
		}
	}
}
