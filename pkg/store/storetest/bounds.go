package storetest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// BoundsCase is one rule set at the rule bounds and a trace of requests for it.
type BoundsCase struct {
	Name  string
	Rules []string // JSON rules, as Set takes them
	Trace []Request
}

// boundsRequests is the length of each BoundsCase's trace.
const boundsRequests = 40

// BoundsCases returns the cases of the bounds check, deterministic in seed: for every
// algorithm, limits near limiter.MaxLimit, near 1 and in between, each over the
// shortest period, the longest and one in between (bursts chosen the same way, within
// limiter.MaxFillMicros), and sets mixing them; every trace has costs from 1 to the
// set's capacity and gaps from 0 to several periods, and half of them end at
// limiter.MaxTime.
func BoundsCases(seed uint64) []BoundsCase {
	rng := rand.New(rand.NewPCG(seed, 25))
	algorithms := []limiter.Algorithm{limiter.FixedWindow, limiter.SlidingWindow, limiter.SlidingLog, limiter.TokenBucket, limiter.LeakyBucket}
	var out []BoundsCase
	for _, a := range algorithms {
		for _, limit := range [...]string{"huge", "one", "mixed"} {
			for _, period := range [...]string{"min", "max", "mixed"} {
				r := boundsRule(rng, a, limit, period)
				name := fmt.Sprintf("%s/limit_%s/period_%s", a, limit, period)
				out = append(out, boundsCase(rng, name, []limiter.Rule{r}))
			}
		}
	}
	for i := range 6 {
		rules := make([]limiter.Rule, 2+rng.IntN(4))
		for j := range rules {
			rules[j] = boundsRule(rng, algorithms[rng.IntN(len(algorithms))], pick(rng, "huge", "one", "mixed"), pick(rng, "min", "max", "mixed"))
			rules[j].Name = fmt.Sprint("r", j)
		}
		out = append(out, boundsCase(rng, fmt.Sprint("set/", i), rules))
	}
	return out
}

func pick(rng *rand.Rand, names ...string) string { return names[rng.IntN(len(names))] }

// boundsRule returns a valid rule of algorithm a with a limit and period of the named
// classes.
func boundsRule(rng *rand.Rand, a limiter.Algorithm, limit, period string) limiter.Rule {
	r := limiter.Rule{Algorithm: a, Limit: boundsCount(rng, limit)}
	minP, maxP := limiter.MinPeriod.Microseconds(), limiter.MaxPeriod.Microseconds()
	us := map[string]int64{"min": minP + rng.Int64N(2), "max": maxP - rng.Int64N(2), "mixed": logUniform(rng, minP, maxP)}[period]
	r.Period = limiter.Every(time.Duration(us) * time.Microsecond)
	if r.IsBucket() {
		burst := boundsCount(rng, pick(rng, "huge", "one", "mixed", "limit"))
		if burst == 0 {
			burst = r.Limit
		}
		r.Burst = min(burst, maxBurst(r.Limit, us))
	}
	return r
}

// boundsCount returns a count of the named class: near limiter.MaxLimit, near 1, or
// log-uniform between; 0 for any other name.
func boundsCount(rng *rand.Rand, class string) int64 {
	switch class {
	case "huge":
		return limiter.MaxLimit - rng.Int64N(1000)
	case "one":
		return 1 + rng.Int64N(3)
	case "mixed":
		return logUniform(rng, 1, limiter.MaxLimit)
	}
	return 0
}

// maxBurst is the largest burst an empty bucket of limit per period (microseconds)
// refills within limiter.MaxFillMicros: floor(MaxFillMicros*limit/period).
func maxBurst(limit, period int64) int64 {
	b := new(big.Int).Mul(big.NewInt(limiter.MaxFillMicros), big.NewInt(limit))
	b.Quo(b, big.NewInt(period))
	if !b.IsInt64() {
		return math.MaxInt64
	}
	return b.Int64()
}

// logUniform returns an integer in [lo, hi] whose logarithm is uniform.
func logUniform(rng *rand.Rand, lo, hi int64) int64 {
	v := int64(math.Exp(math.Log(float64(lo)) + rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
	return min(max(v, lo), hi)
}

// boundsCase builds the case of rules: its JSON and a trace of costs up to the set's
// capacity, with gaps scaled to its longest period.
func boundsCase(rng *rand.Rand, name string, rules []limiter.Rule) BoundsCase {
	c := BoundsCase{Name: name}
	capacity, period := int64(math.MaxInt64), int64(0)
	for _, r := range rules {
		js, _ := json.Marshal(r) // a Rule always marshals
		c.Rules = append(c.Rules, string(js))
		capacity, period = min(capacity, r.Capacity()), max(period, r.Period.Micros())
	}
	c.Trace = make([]Request, boundsRequests)
	at := int64(0)
	for i := range c.Trace {
		at += boundsGap(rng, period)
		c.Trace[i] = Request{At: at, Cost: boundsCost(rng, capacity)}
	}
	// Half the traces end at limiter.MaxTime (or a few microseconds before), the other
	// half start in 2026.
	start := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)) + rng.Int64N(1_000_000)
	if rng.IntN(2) == 0 {
		start = limiter.MaxTime - rng.Int64N(3) - at
	}
	for i := range c.Trace {
		c.Trace[i].At += start
	}
	return c
}

// boundsGap returns the gap before a request: none, a microsecond, a small part of
// period, about a period (one microsecond either side) or up to three periods.
func boundsGap(rng *rand.Rand, period int64) int64 {
	switch rng.IntN(8) {
	case 0, 1:
		return 0
	case 2:
		return 1
	case 3:
		return rng.Int64N(period/1000 + 1)
	case 4, 5:
		return rng.Int64N(period)
	case 6:
		return period - 1 + rng.Int64N(3)
	}
	return rng.Int64N(3 * period)
}

// boundsCost returns a cost from 1 to capacity: 1, the capacity or just below it, half
// of it, or log-uniform between.
func boundsCost(rng *rand.Rand, capacity int64) int64 {
	switch rng.IntN(6) {
	case 0:
		return 1
	case 1:
		return capacity
	case 2:
		return max(capacity-rng.Int64N(3), 1)
	case 3:
		return max(capacity/2+rng.Int64N(3)-1, 1)
	}
	return logUniform(rng, 1, capacity)
}

// testBounds replays every BoundsCase through the store and requires the limiter's
// Decision for every request, then the mixed sets as the counters of one request
// (several keys of one tenant, decided as one). Sets with a sliding_log limit above
// opts.MaxLogLimit, which the backend refuses, are left out.
func testBounds(t *testing.T, st store.Counters, opts CountersOptions) {
	var counters []store.Counter
	for _, c := range BoundsCases(0) {
		t.Run(c.Name, func(t *testing.T) {
			set := Set(t, nil, c.Rules...)
			if r, refused := refusedLog(set, opts); refused {
				t.Skipf("a sliding_log limit of %d is above the backend's %d", r.Limit, opts.MaxLogLimit)
			}
			replay(t, st, Key(t, "k"), set, nil, c.Trace)
			if strings.HasPrefix(c.Name, "set/") && len(counters) < store.MaxCounters {
				counters = append(counters, store.Counter{Set: set})
			}
		})
	}
	t.Run("counters", func(t *testing.T) {
		if len(counters) < 2 {
			t.Skip("fewer than two sets the backend accepts")
		}
		cases := BoundsCases(1)
		trace := cases[len(cases)-1].Trace // a mixed set's: gaps up to its longest period
		capacity := int64(math.MaxInt64)
		for i := range counters {
			counters[i].Key = Key(t, fmt.Sprint("c", i))
			for j := range counters[i].Set.Len() {
				capacity = min(capacity, counters[i].Set.Rule(j).Capacity())
			}
		}
		for i := range trace {
			trace[i].Cost = min(trace[i].Cost, capacity)
		}
		replayCounters(t, st, counters, nil, trace)
	})
}

// refusedLog returns a sliding_log rule of set whose limit is above opts.MaxLogLimit.
func refusedLog(set *limiter.Set, opts CountersOptions) (limiter.Rule, bool) {
	for i := range set.Len() {
		if r := set.Rule(i); opts.MaxLogLimit > 0 && r.Algorithm == limiter.SlidingLog && r.Limit > opts.MaxLogLimit {
			return r, true
		}
	}
	return limiter.Rule{}, false
}
