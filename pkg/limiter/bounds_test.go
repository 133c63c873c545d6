package limiter_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestBoundsAgainstBigReference decides the traces of storetest.BoundsCases for 10
// seeds (limits, bursts and costs near MaxLimit, near 1 and mixed, periods from
// MinPeriod to MaxPeriod, instants up to MaxTime) with the limiter and with a
// reference written from the definitions in math/big rationals, and requires the same
// Decision, field by field. The backends replay seed 0's traces against the limiter
// (storetest's Bounds).
func TestBoundsAgainstBigReference(t *testing.T) {
	var allowed, denied int
	for seed := range uint64(10) {
		for _, c := range storetest.BoundsCases(seed) {
			t.Run(fmt.Sprint(seed, "/", c.Name), func(t *testing.T) {
				a, d := checkBoundsCase(t, c)
				allowed, denied = allowed+a, denied+d
			})
		}
	}
	// Traces that only allow (or only deny) would check half the arithmetic.
	t.Logf("%d requests allowed, %d denied", allowed, denied)
	if n := allowed + denied; allowed < n/5 || denied < n/5 {
		t.Errorf("%d requests allowed and %d denied: the traces should mix both", allowed, denied)
	}
}

// checkBoundsCase decides c's trace with the limiter and the reference, and returns
// how many requests the limiter allowed and denied.
func checkBoundsCase(t *testing.T, c storetest.BoundsCase) (allowed, denied int) {
	rules := make([]limiter.Rule, len(c.Rules))
	refs := make([]ref, len(c.Rules))
	for i, js := range c.Rules {
		r, err := limiter.ParseRule([]byte(js))
		if err != nil {
			t.Fatalf("rule %s: %v", js, err)
		}
		rules[i], refs[i] = r, newRef(r)
	}
	set, err := limiter.NewSet(rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	states := set.NewStates()
	for i, q := range c.Trace {
		got, err := set.Decide(states, q.At, q.Cost)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got.Allowed {
			allowed++
		} else {
			denied++
		}
		if want := decideRef(t, set, refs, q.At, q.Cost); got != want {
			t.Fatalf("%s\nrequest %d (at %d, cost %d): the limiter decided\n  %+v\nthe reference decides\n  %+v", c.Rules, i, q.At, q.Cost, got, want)
		}
	}
	return allowed, denied
}

// decideRef decides a request with the references of a set's rules: allowed iff every
// rule allows, consumed from all only then, folded by Set.Combine.
func decideRef(t *testing.T, set *limiter.Set, refs []ref, now, cost int64) limiter.Decision {
	outs := make([]limiter.Outcome, len(refs))
	allowed := true
	for i, r := range refs {
		outs[i] = outcome(t, r, now, cost)
		allowed = allowed && outs[i].Allowed
	}
	if allowed {
		for _, r := range refs {
			r.admit(now, cost)
		}
	}
	return set.Combine(outs)
}

// ref is one rule's reference: whether a request fits at an instant (with no request
// in between), its Remaining and Reset, and the admission of an allowed one. Instants
// never go backwards.
type ref interface {
	fits(at, cost int64) bool
	remaining(at, cost int64, allowed bool) int64
	reset(at, cost int64, allowed bool) int64
	delay(at int64) int64
	admit(at, cost int64)
	horizon(at int64) int64 // an instant at which every request of at most capacity fits
}

// outcome is a rule's Outcome by its definition: RetryAfter is found by bisection as
// the first instant at which the same request fits.
func outcome(t *testing.T, r ref, now, cost int64) limiter.Outcome {
	allowed := r.fits(now, cost)
	o := limiter.Outcome{Allowed: allowed, Remaining: r.remaining(now, cost, allowed), Reset: r.reset(now, cost, allowed)}
	if allowed {
		o.Delay = r.delay(now)
		return o
	}
	lo, hi := now, r.horizon(now) // fits(lo) is false, fits(hi) true
	if !r.fits(hi, cost) {
		t.Fatalf("reference: a request of cost %d does not fit at its horizon %d", cost, hi)
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; r.fits(mid, cost) {
			hi = mid
		} else {
			lo = mid
		}
	}
	o.RetryAfter = hi - now
	return o
}

func newRef(r limiter.Rule) ref {
	p := r.Period.Micros()
	switch r.Algorithm {
	case limiter.FixedWindow:
		return &refFixed{limit: r.Limit, period: p, anchored: r.Anchor == limiter.AnchorFirstRequest}
	case limiter.SlidingWindow:
		return &refSliding{limit: r.Limit, period: p, counts: map[int64]int64{}}
	case limiter.SlidingLog:
		return &refLog{limit: r.Limit, period: p}
	}
	return &refBucket{burst: r.Capacity(), leaky: r.Algorithm == limiter.LeakyBucket,
		interval: big.NewRat(p, r.Limit), period: p}
}

func rat(v int64) *big.Rat { return new(big.Rat).SetInt64(v) }

// floorRat and ceilRat round x to an integer, which must fit int64 (big.Int's Div is
// Euclidean: the floor for a positive denominator).
func floorRat(x *big.Rat) int64 { return new(big.Int).Div(x.Num(), x.Denom()).Int64() }

func ceilRat(x *big.Rat) int64 {
	return -floorRat(new(big.Rat).Neg(x))
}

// refFixed: at most limit per window [start, start+period), aligned to the epoch or
// opened by the first request admitted after the previous window ended.
type refFixed struct {
	limit, period, start, end, count int64
	anchored, open                   bool
}

// window returns the window at holds and what was admitted in it.
func (f *refFixed) window(at int64) (end, count int64) {
	if f.anchored {
		if f.open && at < f.end {
			return f.end, f.count
		}
		return at + f.period, 0
	}
	start := at / f.period * f.period
	if f.open && f.start == start {
		return f.end, f.count
	}
	return start + f.period, 0
}

func (f *refFixed) fits(at, cost int64) bool {
	_, n := f.window(at)
	return n+cost <= f.limit
}

func (f *refFixed) remaining(at, cost int64, allowed bool) int64 {
	_, n := f.window(at)
	if allowed {
		return f.limit - n - cost
	}
	return f.limit - n
}

func (f *refFixed) reset(at, _ int64, _ bool) int64 { end, _ := f.window(at); return end }
func (f *refFixed) delay(int64) int64               { return 0 }
func (f *refFixed) horizon(at int64) int64          { end, _ := f.window(at); return end }

func (f *refFixed) admit(at, cost int64) {
	end, n := f.window(at)
	f.start, f.end, f.count, f.open = end-f.period, end, n+cost, true
}

// refSliding: the two-window approximation, prev*(1 - e/period) + curr + cost - 1 <
// limit, in rationals; what is used now is prev*(1 - e/period) + curr, rounded down.
type refSliding struct {
	limit, period int64
	counts        map[int64]int64 // admitted per window index
}

// used returns prev*(period-e)/period + curr at at, and the window's start.
func (s *refSliding) used(at int64) (*big.Rat, int64) {
	w := at / s.period
	weight := big.NewRat(s.period-at%s.period, s.period)
	u := new(big.Rat).Mul(rat(s.counts[w-1]), weight)
	return u.Add(u, rat(s.counts[w])), w * s.period
}

func (s *refSliding) fits(at, cost int64) bool {
	u, _ := s.used(at)
	u.Add(u, rat(cost-1))
	return u.Cmp(rat(s.limit)) < 0
}

func (s *refSliding) remaining(at, cost int64, allowed bool) int64 {
	u, _ := s.used(at)
	left := s.limit - floorRat(u)
	if allowed {
		return left - cost
	}
	return max(left, 0)
}

func (s *refSliding) reset(at, cost int64, allowed bool) int64 {
	w := at / s.period
	curr := s.counts[w]
	if allowed {
		curr += cost
	}
	switch {
	case curr > 0:
		return (w + 2) * s.period
	case s.counts[w-1] > 0:
		return (w + 1) * s.period
	}
	return at
}

func (s *refSliding) delay(int64) int64      { return 0 }
func (s *refSliding) horizon(at int64) int64 { return (at/s.period + 2) * s.period }
func (s *refSliding) admit(at, cost int64)   { s.counts[at/s.period] += cost }

// refLog: at most limit in every interval (t - period, t].
type refLog struct {
	limit, period int64
	at, cost      []int64
}

// used returns the cost admitted in (at-period, at] and the newest instant in it (-1
// when none).
func (l *refLog) used(at int64) (sum, newest int64) {
	newest = -1
	for i, t := range l.at {
		if t > at-l.period && t <= at {
			sum += l.cost[i]
			newest = t
		}
	}
	return sum, newest
}

func (l *refLog) fits(at, cost int64) bool { u, _ := l.used(at); return u+cost <= l.limit }

func (l *refLog) remaining(at, cost int64, allowed bool) int64 {
	u, _ := l.used(at)
	if allowed {
		return l.limit - u - cost
	}
	return l.limit - u
}

func (l *refLog) reset(at, _ int64, allowed bool) int64 {
	_, newest := l.used(at)
	switch {
	case allowed:
		return at + l.period
	case newest < 0:
		return at
	}
	return newest + l.period
}

func (l *refLog) delay(int64) int64      { return 0 }
func (l *refLog) horizon(at int64) int64 { return at + l.period }
func (l *refLog) admit(at, cost int64)   { l.at, l.cost = append(l.at, at), append(l.cost, cost) }

// refBucket: GCRA in rationals. A request of cost moves the theoretical arrival time
// max(TAT, now) by cost intervals period/limit, and fits iff the new TAT is at most
// now + burst intervals; Remaining is the whole intervals left below that.
type refBucket struct {
	burst, period int64
	interval      *big.Rat // period/limit, microseconds
	tat           *big.Rat // nil: full
	leaky         bool
}

// from returns max(TAT, at).
func (b *refBucket) from(at int64) *big.Rat {
	if b.tat == nil || b.tat.Cmp(rat(at)) < 0 {
		return rat(at)
	}
	return new(big.Rat).Set(b.tat)
}

// after returns the TAT after a request of cost at at.
func (b *refBucket) after(at, cost int64) *big.Rat {
	step := new(big.Rat).Mul(rat(cost), b.interval)
	return step.Add(step, b.from(at))
}

// latest is at + burst intervals, the latest TAT the bucket tolerates.
func (b *refBucket) latest(at int64) *big.Rat {
	l := new(big.Rat).Mul(rat(b.burst), b.interval)
	return l.Add(l, rat(at))
}

func (b *refBucket) fits(at, cost int64) bool { return b.after(at, cost).Cmp(b.latest(at)) <= 0 }

func (b *refBucket) remaining(at, cost int64, allowed bool) int64 {
	tat := b.from(at)
	if allowed {
		tat = b.after(at, cost)
	}
	left := new(big.Rat).Sub(b.latest(at), tat)
	return max(floorRat(left.Quo(left, b.interval)), 0)
}

func (b *refBucket) reset(at, cost int64, allowed bool) int64 {
	if allowed {
		return ceilRat(b.after(at, cost))
	}
	return ceilRat(b.from(at))
}

func (b *refBucket) delay(at int64) int64 {
	if !b.leaky {
		return 0
	}
	return ceilRat(b.from(at)) - at
}

func (b *refBucket) horizon(at int64) int64 { return ceilRat(b.from(at)) } // full
func (b *refBucket) admit(at, cost int64)   { b.tat = b.after(at, cost) }

// TestLogAtTheBoundsHoldsOneEntryPerInstant: a sliding_log of limit 10^12 keeps one
// entry per distinct admitted instant, whatever the costs, and drops the entries that
// leave its period, so its memory follows the instants admitted in one period.
func TestLogAtTheBoundsHoldsOneEntryPerInstant(t *testing.T) {
	r, err := limiter.ParseRule([]byte(`{"algorithm": "sliding_log", "limit": 1000000000000, "period": "1s"}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := limiter.NewSet([]limiter.Rule{r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states := set.NewStates()
	start := limiter.MaxTime - 10_000_000
	for i := range int64(3000) { // 30 requests at each of 100 instants 10ms apart
		if d, err := set.Decide(states, start+i/30*10_000, 300_000_000); err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v, %v", i, d, err)
		}
	}
	if n := states[0].Log.Len(); n != 100 {
		t.Fatalf("the log holds %d entries after 3000 requests at 100 instants, want 100", n)
	}
	if _, err := set.Decide(states, start+990_000+1_000_000, 1); err != nil {
		t.Fatal(err)
	}
	if n := states[0].Log.Len(); n != 1 {
		t.Fatalf("the log holds %d entries a period after its newest, want 1 (the new one)", n)
	}
}
